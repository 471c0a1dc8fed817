// flamespace page scripts: the one search of every page. A search box (a regex over frame names), its
// "Ignore case" box and what matched; the pages differ only in what a pattern is run on (Search's `run`).
// The matched share is the rule of the SVG's search and of the library: of the zoomed frame's value, the
// part under a frame whose name matches, each match counted once (not again inside another match),
// counting the frames too narrow to lay out that the page holds (render/html.py's `narrow` block).
import { el } from "./dom.mjs";

// what a frame with a regex's special characters is searched as: the text itself
export function escapeRegex(text) { return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }

// a search box's text as a pattern: a RegExp, null for no text, undefined when the text is no regex
export function compileSearch(text, ignoreCase) {
	if (!text) return null;
	try { return new RegExp(text, ignoreCase ? "i" : ""); } catch (e) { return undefined; }
}

// which names match `pattern`: a Uint8Array over the string table, 1 where the name matches
export function matchNames(names, pattern) {
	var match = new Uint8Array(names.length);
	for (var j = 0; j < names.length; j++) match[j] = pattern.test(names[j]) ? 1 : 0;
	return match;
}

// The matched share of frame `zoom` of `tree` for `match` (matchNames'): {share, upTo}, where upTo is the
// most it can be when the page holds only the widest of the frames left out (tree.narrow.missing: the
// value under each laid-out frame in frames the page does not hold). A frame inside a match counts once.
export function matchedShare(tree, match, zoom) {
	var valueOf = tree.value, nameOf = tree.name, parentOf = tree.parent, endOf = tree.end;
	var sum = 0, inside = false, N = tree.narrow, missing = N && N.missing, unknown = 0;
	for (var a = zoom; a >= 0; a = parentOf[a]) if (match[nameOf[a]]) inside = true;
	if (inside) sum = valueOf[zoom];
	else {
		sum = narrowMatched(N, match, zoom);
		if (missing) unknown += missing[zoom];
		for (var i = zoom + 1, stop = endOf[zoom]; i < stop;) {
			if (match[nameOf[i]]) { sum += valueOf[i]; i = endOf[i]; continue; }
			sum += narrowMatched(N, match, i);
			if (missing) unknown += missing[i];
			i++;
		}
	}
	return {share: valueOf[zoom] ? sum / valueOf[zoom] : 0, upTo: valueOf[zoom] ? Math.min(1, (sum + unknown) / valueOf[zoom]) : 0};
}
// the value of the left-out frames (N: the tree's narrow block, or null) owned by laid-out frame i that
// match (outermost ones: a match inside one counts once)
function narrowMatched(N, match, i) {
	if (!N) return 0;
	var sum = 0, r = N.first[i], stop = N.first[i + 1], nameAt = N.name, depthAt = N.depth;
	while (r < stop) {
		if (match[nameAt[r]]) {
			var depth = depthAt[r];
			sum += N.value[r];
			for (r++; r < stop && depthAt[r] > depth; r++);
		} else r++;
	}
	return sum;
}

// a matched share as the SVG's search shows it (flamegraph.js): one decimal, "100" only when all but 0.005% matched
export function matchedPercent(share) { var pct = Math.min(100, 100 * share); return pct > 99.995 ? "100" : pct.toFixed(1); }
// "Matched: 40.8%" (empty without a search: share null); "Matched: 40.1–41.2%" when frames the page does
// not hold could add up to the second figure (upTo)
export function matchedRange(share, upTo) {
	if (share === null) return "";
	var low = matchedPercent(share), high = matchedPercent(upTo === null || upTo === undefined ? share : upTo);
	return "Matched: " + (high === low ? low : low + "\u2013" + high) + "%";
}
// the title of a matched share given as a range
export const RANGE_NOTE = "The page holds the widest of the frames too narrow to draw, not all: the others could add up to the second figure";
// a pane's matched share as the search field shows it: {text, some (anything matched), title}
export function paneMatched(pane) {
	var share = pane.matched(), text = matchedRange(share, pane.matchedUpTo ? pane.matchedUpTo() : share);
	return {text: text, some: !!share, title: text.indexOf("\u2013") >= 0 ? RANGE_NOTE : ""};
}
// the pane's text alone ("Matched: 40.8%")
export function matchedText(pane) { return paneMatched(pane).text; }
// a flame chart's count: "3 boxes match"
export function boxesMatched(count) {
	return {text: count.toLocaleString("en") + " box" + (count === 1 ? "" : "es") + " match", some: count > 0, title: ""};
}

// the search box, its ignore-case box and what matched, in a toolbar
export function searchField(toolbar) {
	var box = toolbar.appendChild(el("input", {id: "search", type: "search", placeholder: "Search (regex)  /", spellcheck: "false", autocomplete: "off"}));
	var label = toolbar.appendChild(el("label", {"class": "check", title: "Ignore case"}));
	var ignoreCase = label.appendChild(el("input", {id: "ignorecase", type: "checkbox"}));
	label.appendChild(document.createTextNode("Ignore case"));
	return {box: box, ignoreCase: ignoreCase, matched: toolbar.appendChild(el("span", {id: "matched"}))};
}
// Whether a key is the search's: Ctrl+F, / or F3 anywhere (focus the box); Esc in the box (clear it). target: the
// event's; returns "focus", "clear", "typing" (any other key in the box) or "" (not the search's).
// Keys typed in another field are not the search's.
export function searchKey(key, ctrl, target, box) {
	if (target === box) return key === "Escape" ? "clear" : "typing";
	if (target && /^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) return "";
	if (ctrl && key === "f" || key === "/" || key === "F3") return "focus";
	return "";
}

// Search(toolbar, options): the search field in `toolbar`. On every edit the box's pattern (a RegExp, or null:
// none, also for a text that is no regex, which marks the box "bad") goes to options.run(pattern, text), which
// searches; then options.matched() says what matched ({text, some, title}: paneMatched or boxesMatched), shown
// beside the box (and again on update(), e.g. after a zoom). options.keys: false when the page calls key(e)
// from its own keydown handler (else the search listens to the page's keys itself). Methods: set(text[,
// ignoreCase]) (fill the box and search), run() (search again), update(), key(e) (true: the key was the
// search's), text(), pattern(), ignoreCase().
export function Search(toolbar, options) {
	var field = searchField(toolbar), box = field.box, caseBox = field.ignoreCase, shown = field.matched, pattern = null;
	function update() {
		var matched = pattern === null ? {text: "", some: false, title: ""} : options.matched();
		shown.textContent = matched.text;
		shown.title = matched.title;
		shown.className = matched.some ? "some" : "";
	}
	function run() {
		pattern = compileSearch(box.value, caseBox.checked);
		box.classList.toggle("bad", pattern === undefined);
		if (pattern === undefined) pattern = null;
		options.run(pattern, box.value);
		update();
	}
	function set(text, ignoreCase) {
		box.value = text;
		if (ignoreCase !== undefined) caseBox.checked = !!ignoreCase;
		run();
	}
	function key(e) {
		var what = searchKey(e.key, e.ctrlKey || e.metaKey, e.target, box);
		if (what === "clear") { set(""); box.blur(); }
		else if (what === "focus") { e.preventDefault(); box.focus(); box.select(); }
		return what !== "";
	}
	box.addEventListener("input", run);
	caseBox.addEventListener("change", run);
	if (options.keys !== false) document.addEventListener("keydown", key);
	return {
		box: box, ignoreCaseBox: caseBox, set: set, run: run, update: update, key: key,
		text: function () { return box.value; },
		pattern: function () { return pattern; },
		ignoreCase: function () { return caseBox.checked; },
	};
}
