// flamespace comparison page: two or more profiles (render/compare_page.py's payload) drawn with the
// pane component (pane.mjs). Every view is a pane over one profile; all profiles share one list of
// frames (the union of their stacks, one frame a path), so a frame is the same index everywhere: zoom
// and hover in one pane are carried to the others, and to the next tab, by that index. The payload
// holds each profile's value of each row (a stack of the union) and where the rows sit among the
// frames; the frames' values, the pair's views (white/black, the four parts, |B - A|) and the
// significance colours are derived here, the views when their tab is first shown.
import { el, legendBar } from "./dom.mjs";
import { parseFragment, replaceFragment } from "./fragment.mjs";
import { Pane } from "./pane.mjs";
import { column } from "./payload.mjs";
import { Search, paneMatched } from "./search.mjs";
import { index } from "./tree_kit.mjs";
import { formatter } from "./units.mjs";

var data = JSON.parse(document.getElementById("flamespace-comparison").textContent);
if (data.version !== 2) throw new Error("flamespace comparison: unknown payload version " + data.version);
var api = {ready: false, draws: 0};
window.flamespaceCompare = api;
var format = formatter(data.units), human = format.human, percent = format.percent;
var names = data.names, K = data.profiles.length;

// -- the frames (the union of the profiles' stacks) and each profile's values over them ----------
var F = data.frames, N = F.count, nameOf = column(F.name), depthOf = column(F.depth);
var union = index({count: N, name: nameOf, depth: depthOf, total: 0, maxDepth: data.max_depth});
var parentOf = union.parent;
// The rows (the sorted union of stacks; compare_page.py's placement): each row's home (the deepest frame
// its path reaches), each frame's own row (-1: none) and its rows [lo, hi), every row under its path.
var R = data.rows, S = R.count, home = new Int32Array(S), ownRow = new Int32Array(N).fill(-1);
var lo = new Int32Array(N).fill(S), hi = new Int32Array(N);
(function () {
	var owned = column(R.own), otherRows = column(R.others.row), otherHome = column(R.others.home), m = R.others.count;
	var k = 0, j = 0, nextOwn = owned.length ? owned[0] : -1, nextOther = m ? otherRows[0] : -1, r, h, i;
	for (r = 0; r < S; r++) {
		if (j < m && nextOther === r) {
			home[r] = otherHome[j];
			if (++j < m) nextOther += otherRows[j];
		} else {
			home[r] = nextOwn; ownRow[nextOwn] = r;
			if (++k < owned.length) nextOwn += owned[k];
		}
	}
	for (r = 0; r < S; r++) { h = home[r]; if (r < lo[h]) lo[h] = r; hi[h] = r + 1; }
	for (i = N - 1; i > 0; i--) {
		h = parentOf[i];
		if (lo[i] < lo[h]) lo[h] = lo[i];
		if (hi[i] > hi[h]) hi[h] = hi[i];
	}
	for (i = 0; i < N; i++) if (lo[i] > hi[i]) lo[i] = hi[i];
})();
// a profile's value of every row (all of them, or only its rows with a value: their gaps)
function rowValues(enc) {
	var given = column(enc.value);
	if (!enc.rows) return Float64Array.from(given);
	var out = new Float64Array(S), gaps = column(enc.rows);
	for (var k = 0, r = 0; k < enc.count; k++) { r += gaps[k]; out[r] = given[k]; }
	return out;
}
// every frame's start, inclusive and self value, from the values of the rows
function frameColumns(label, total, rows) {
	var cum = new Float64Array(S + 1), i;
	for (i = 0; i < S; i++) cum[i + 1] = cum[i] + rows[i];
	var out = {label: label, total: total, rows: rows, start: new Float64Array(N), value: new Float64Array(N), self: new Float64Array(N)};
	for (i = 0; i < N; i++) {
		out.start[i] = cum[lo[i]]; out.value[i] = cum[hi[i]] - cum[lo[i]];
		out.self[i] = ownRow[i] >= 0 ? rows[ownRow[i]] : 0;
	}
	if (total === null) out.total = N ? out.value[0] : 0;
	return out;
}
var profiles = data.profiles.map(function (p) { return frameColumns(p.label, p.total, rowValues(p.values)); });
var A = profiles[data.pair[0]], B = profiles[data.pair[1]];
// The views of the pair, each per row (compare_page.derive_view), derived when first used; a compare
// result's parts come in the payload.
function deriveView(name) {
	var a = A.rows, b = B.rows, out = new Float64Array(S), r, x, y;
	if (name === "whiteblack") for (r = 0; r < S; r++) { y = b[r]; out[r] = y !== 0 ? y : a[r]; }
	else if (name === "delta") for (r = 0; r < S; r++) out[r] = Math.abs(b[r] - a[r]);
	else if (name === "appeared") for (r = 0; r < S; r++) { y = b[r]; out[r] = y && !a[r] ? y : 0; }
	else if (name === "grown") for (r = 0; r < S; r++) { x = a[r]; y = b[r]; out[r] = x && y && y > x ? y - x : 0; }
	else if (name === "disappeared") for (r = 0; r < S; r++) { x = a[r]; out[r] = x && !b[r] ? x : 0; }
	else if (name === "shrunk") for (r = 0; r < S; r++) { x = a[r]; y = b[r]; out[r] = x && y && y < x ? x - y : 0; }
	return out;
}
var views = {};
["whiteblack", "appeared", "grown", "disappeared", "shrunk", "delta"].forEach(function (name) {
	Object.defineProperty(views, name, {enumerable: true, configurable: true, get: function () {
		var rows = data.parts && data.parts[name] ? rowValues(data.parts[name]) : deriveView(name);
		var decoded = frameColumns(name, null, rows);
		Object.defineProperty(views, name, {value: decoded});
		return decoded;
	}});
});
var sig = null;
if (data.significance) sig = significance(data.significance);

// -- a compare result: each frame's test (its own row's) and its colour as compare's delta.svg
// (render/significance.py Colouring): strong at a significant row's frame, tinted on its callers, grey elsewhere
function significance(S_) {
	var s = {test: new Uint8Array(N), inside: new Uint8Array(N), p: new Float64Array(N).fill(NaN),
		p_adjusted: new Float64Array(N).fill(NaN), lower: new Float64Array(N).fill(NaN), upper: new Float64Array(N).fill(NaN), kind: {}};
	Object.keys(S_.codes).forEach(function (name) { s.kind[S_.codes[name]] = name; });
	var DIRECTION = {appeared: 1, grown: 1, disappeared: -1, shrunk: -1};
	var gaps = column(S_.rows), codes = column(S_.test), numbers = {}, at = new Int32Array(S).fill(-1), k, r, u;
	["p", "p_adjusted", "lower", "upper"].forEach(function (key) { numbers[key] = column(S_[key]); });
	for (k = 0, r = 0; k < S_.count; k++) { r += gaps[k]; at[r] = k; }
	for (u = 1; u < N; u++) {
		k = ownRow[u] >= 0 ? at[ownRow[u]] : -1;
		if (k < 0 || !depthOf[u]) continue;
		s.test[u] = codes[k];
		s.p[u] = numbers.p[k]; s.p_adjusted[u] = numbers.p_adjusted[k]; s.lower[u] = numbers.lower[k]; s.upper[u] = numbers.upper[k];
	}
	// the coloured rows' changes (B - A), the largest, and the net change inside each of their callers
	var changed = [], largest = 0, net = new Float64Array(N);
	for (k = 0, r = 0; k < S_.count; k++) {
		r += gaps[k];
		if (DIRECTION[s.kind[codes[k]]]) { changed.push([r, k, B.rows[r] - A.rows[r]]); largest = Math.max(largest, Math.abs(B.rows[r] - A.rows[r])); }
	}
	largest = largest || 1;
	var strongAt = new Int32Array(N).fill(-1);
	changed.forEach(function (c, position) {
		var f = home[c[0]];
		if (ownRow[f] === c[0]) { if (depthOf[f]) strongAt[f] = position; f = parentOf[f]; }
		for (; f >= 0; f = parentOf[f]) { s.inside[f] = 1; net[f] += c[2]; }
	});
	var annotated = {}, frames = column(S_.annotated.frames), levels = column(S_.annotated.grey);
	for (k = 0, u = 0; k < S_.annotated.count; k++) { u += frames[k]; annotated[u] = levels[k]; }
	var greys = {};
	function grey(u) {
		var level = annotated[u];
		if (level === undefined) {
			var name = nameOf[u];
			if (!(name in greys)) greys[name] = 196 + Math.floor(crc32(names[name]) / 134217728);  // 196 + int(32 * crc / 2**32)
			level = greys[name];
		}
		return "rgb(" + level + "," + level + "," + level + ")";
	}
	function strong(direction, size) {
		var share = Math.min(Math.abs(size) / largest, 1), level = roundEven(170 - 90 * share);
		return direction > 0 ? "rgb(255," + level + "," + level + ")" : "rgb(" + level + "," + level + ",255)";
	}
	var TINT = {"1": "rgb(255,218,218)", "-1": "rgb(218,218,255)", "0": "rgb(236,218,240)"};
	s.colourOf = function (u) {  // the colour of frame u
		var c = strongAt[u] >= 0 ? changed[strongAt[u]] : null;
		if (c) return strong(DIRECTION[s.kind[codes[c[1]]]], c[2]);
		if (s.inside[u]) return TINT[String((net[u] > 0) - (net[u] < 0))];
		return grey(u);
	};
	s.bar = S_.bar; s.legend = S_.legend;
	return s;
}
function roundEven(x) {  // Python's round(): halves to the even neighbour
	var r = Math.round(x);
	return r - x === 0.5 && r % 2 ? r - 1 : r;
}
var CRC = null;
function crc32(text) {  // zlib's CRC-32 of the name's UTF-8 (lone surrogates U+DC80..U+DCFF: the bytes Python's surrogateescape kept)
	if (!CRC) {
		CRC = new Int32Array(256);
		for (var n = 0; n < 256; n++) {
			var c = n;
			for (var b = 0; b < 8; b++) c = c & 1 ? 0xEDB88320 ^ (c >>> 1) : c >>> 1;
			CRC[n] = c;
		}
	}
	var crc = -1;
	function add(byte) { crc = CRC[(crc ^ byte) & 0xFF] ^ (crc >>> 8); }
	for (var i = 0; i < text.length; i++) {
		var code = text.charCodeAt(i);
		if (code >= 0xD800 && code < 0xDC00 && i + 1 < text.length) {
			var low = text.charCodeAt(i + 1);
			if (low >= 0xDC00 && low < 0xE000) { code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00); i++; }
		}
		if (code < 0x80) add(code);
		else if (code >= 0xDC80 && code < 0xDD00) add(code - 0xDC00);
		else if (code < 0x800) { add(0xC0 | code >> 6); add(0x80 | code & 63); }
		else if (code < 0x10000) { add(0xE0 | code >> 12); add(0x80 | code >> 6 & 63); add(0x80 | code & 63); }
		else { add(0xF0 | code >> 18); add(0x80 | code >> 12 & 63); add(0x80 | code >> 6 & 63); add(0x80 | code & 63); }
	}
	return (crc ^ -1) >>> 0;
}

// A pane's frames: the frames where profile P has a value, with map (pane index -> frame) and back (frame -> pane index).
function treeOf(P) {
	var keep = [];
	for (var i = 0; i < N; i++) if (P.value[i] > 0) keep.push(i);
	var m = keep.length, map = Uint32Array.from(keep), back = new Int32Array(N).fill(-1);
	var t = {count: m, name: new Uint32Array(m), depth: new Uint32Array(m), start: new Float64Array(m),
		value: new Float64Array(m), self: new Float64Array(m), colour: null, delta: null, total: P.total};
	for (var j = 0; j < m; j++) {
		var u = map[j];
		back[u] = j;
		t.name[j] = nameOf[u]; t.depth[j] = depthOf[u]; t.start[j] = P.start[u]; t.value[j] = P.value[u]; t.self[j] = P.self[u];
	}
	index(t);
	t.total = P.total;
	t.map = map;
	t.back = back;
	return t;
}

// -- colours: the SVG's rule (render/colouring.py frame_colours, palettes.diff_colour, change_scale) ------
// White for no change, red for more, blue for less, full at `largest` and beyond.
function diffColour(delta, largest, negate) {
	if (negate) delta = -delta;
	delta = Math.max(-largest, Math.min(delta, largest));
	var level;
	if (delta > 0) { level = Math.floor(210 * (largest - delta) / largest); return "rgb(255," + level + "," + level + ")"; }
	if (delta < 0) { level = Math.floor(210 * (largest + delta) / largest); return "rgb(" + level + "," + level + ",255)"; }
	return "rgb(255,255,255)";
}
// WCAG 2: white ink where it has the higher contrast (palettes.needs_light_ink)
var inkCache = {};
function lightInk(colour) {
	if (colour in inkCache) return inkCache[colour];
	var m = /^rgb\((\d+),(\d+),(\d+)\)$/.exec(colour), light = false;
	if (m) {
		var c = [m[1], m[2], m[3]].map(function (x) {
			var v = Math.min(parseInt(x, 10), 255) / 255;
			return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
		});
		var L = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
		light = (1.05) / (L + 0.05) > (L + 0.05) / 0.05;
	}
	return (inkCache[colour] = light);
}
// The change at which colours are full: the largest change of one frame's own value, the root left out
// (inclusive: a frame's change less its children's; self: the self changes themselves); else the
// largest change of any frame but the root; else 1 (render/colouring.py change_scale).
function changeScale(inclusive, own) {
	if (!own) {
		own = Float64Array.from(inclusive);
		for (var i = 1; i < N; i++) own[parentOf[i]] -= inclusive[i];
	}
	var largest = 0, k;
	for (k = 1; k < N; k++) largest = Math.max(largest, Math.abs(own[k]));
	if (!largest) for (k = 1; k < N; k++) largest = Math.max(largest, Math.abs(inclusive[k]));
	return largest || 1;
}
function difference(after, before) {
	var out = new Float64Array(N);
	for (var i = 0; i < N; i++) out[i] = after[i] - before[i];
	return out;
}
// change of the pair (from, to) by mode: {inclusive, self, largest}
var changes = {};
function changeOf(from, to, mode) {
	var key = from + ">" + to + ":" + mode;
	if (!changes[key]) {
		var P = profiles[from], Q = profiles[to];
		var inclusive = difference(Q.value, P.value), own = mode === "self" ? difference(Q.self, P.self) : null;
		var largest = changeScale(inclusive, own);
		changes[key] = {delta: own || inclusive, inclusive: inclusive, self: own || difference(Q.self, P.self), largest: largest};
	}
	return changes[key];
}
api.largest = function (mode) { return changeOf(data.pair[0], data.pair[1], mode).largest; };
function changeColour(change, u) {
	var name = names[nameOf[u]];
	if (depthOf[u] && data.separators[name]) return data.separators[name];
	return diffColour(change.delta[u], change.largest, data.negate);
}
var WHITE = "rgb(250,250,250)", BLACK = "rgb(40,40,40)";

// -- the page -----------------------------------------------------------------------------------------
var header = document.body.appendChild(el("header"));
header.appendChild(el("h1", {id: "title"}, data.title));
header.appendChild(el("div", {id: "subtitle"}, data.subtitle || (K === 2 ? "A: " + A.label + " \u00b7 B: " + B.label
	: K + " profiles, " + A.label + " \u2026 " + B.label)));
var tabBar = header.appendChild(el("div", {"class": "tabs", role: "tablist"}));
var toolbar = header.appendChild(el("div", {"class": "toolbar"}));
var resetButton = toolbar.appendChild(el("button", {id: "reset", title: "Show the whole graph (Esc)"}, "Reset zoom"));
var shape = toolbar.appendChild(el("span", {"class": "segmented"}));
var flameButton = shape.appendChild(el("button", {id: "flame", title: "Root at the bottom"}, "Flame"));
var icicleButton = shape.appendChild(el("button", {id: "icicle", title: "Root at the top"}, "Icicle"));
var modeBox = toolbar.appendChild(el("span", {"class": "segmented", id: "modes"}));
var MODES = [["inclusive", "Inclusive \u0394", "Colour each frame by the change of its value with its callees'"],
	["self", "Self \u0394", "Colour each frame by the change of its own value"]];
if (sig) MODES.unshift(["significance", "Significant", "Colour only the stacks whose change the test found significant"]);
var mode = sig ? "significance" : data.delta;
MODES.forEach(function (m) {
	var button = modeBox.appendChild(el("button", {id: "mode-" + m[0], title: m[2]}, m[1]));
	button.addEventListener("click", function () { setMode(m[0]); });
});
toolbar.appendChild(el("span", {id: "hint"}, "Click to zoom (all panes follow) \u00b7 Ctrl+wheel zooms \u00b7 Esc resets \u00b7 1\u2013" + (K > 2 ? 8 : 7) + " switch tabs"));
toolbar.appendChild(el("span", {"class": "grow"}));
var searchUi = Search(toolbar, {keys: false, run: function (pattern) {
	searchPattern = pattern;
	current.panes.forEach(function (entry) { entry.pane.search(pattern); });
}, matched: function () { return current && current.panes ? paneMatched(first()) : {text: "", some: false, title: ""}; }});
var crumbs = header.appendChild(el("div", {id: "crumbs"}));
var legend = document.body.appendChild(el("div", {id: "legend"}));
var main = document.body.appendChild(el("div", {id: "views"}));
function headerHeight() { return header.getBoundingClientRect().height; }

// -- tabs: each a set of panes, made when first shown ------------------------------------------------
var TABS = [
	{id: "overlay", title: "Overlay", tip: "B, coloured by its change from A"},
	{id: "panes", title: "A | B | \u0394", tip: "A, B and the change side by side, zoom and hover in step"},
	{id: "whiteblack", title: "White/black", tip: "B in white, and in black the paths only in A (what a plain differential hides)"},
	{id: "appeared", title: "Appeared", tip: "Stacks only in B"},
	{id: "grown", title: "Grown", tip: "Stacks in both, larger in B: by how much"},
	{id: "disappeared", title: "Disappeared", tip: "Stacks only in A"},
	{id: "shrunk", title: "Shrunk", tip: "Stacks in both, smaller in B: by how much"},
];
if (K > 2) TABS.unshift({id: "series", title: "Series", tip: "Each profile in turn, coloured by its change from the one before"});
var tabs = {}, current = null, inverted = !!data.inverted, searchPattern = null, focus = {frame: 0, lo: 0, hi: 1};
var seriesIndex = K - 1;
TABS.forEach(function (spec) {
	var button = tabBar.appendChild(el("button", {id: "tab-" + spec.id, role: "tab", title: spec.tip}, spec.title));
	var box = main.appendChild(el("div", {id: "view-" + spec.id, "class": "view", role: "tabpanel"}));
	tabs[spec.id] = {spec: spec, button: button, box: box, panes: null};
	button.addEventListener("click", function () { show(spec.id); });
});

// the profile each pane of a tab draws, and how its frames are coloured
function paneSpecs(id) {
	var pair = [data.pair[0], data.pair[1]];
	if (id === "overlay") return [{profile: B, label: "B: " + B.label, colour: pairColour(pair)}];
	if (id === "panes") return [
		{profile: A, label: "A: " + A.label, colour: pairColour(pair), cls: "half"},
		{profile: B, label: "B: " + B.label, colour: pairColour(pair), cls: "half"},
		{profile: views.delta, view: "delta", label: "\u0394: the size of each stack's change, |B \u2212 A|, coloured by its sign", colour: pairColour(pair)}];
	if (id === "whiteblack") return [{profile: views.whiteblack, view: "whiteblack", label: "B (white) and the paths only in A (black)",
		colour: function (u) { return B.value[u] > 0 ? WHITE : BLACK; }, background: ["#cfcfcf", "#bdbdbd"]}];
	if (id === "series") return [{profile: profiles[seriesIndex], label: profiles[seriesIndex].label, series: true,
		colour: seriesIndex ? pairColour([seriesIndex - 1, seriesIndex]) : function () { return "rgb(236,236,236)"; }}];
	var part = views[id], sign = id === "appeared" || id === "grown" ? 1 : -1, largest = changeScale(part.value);
	return [{profile: part, label: TABS.filter(function (t) { return t.id === id; })[0].tip,
		colour: function (u) { return diffColour(sign * part.value[u], largest, data.negate); }, part: id}];
}
function pairColour(pair) {
	return function (u) {
		if (mode === "significance" && pair[0] === data.pair[0] && pair[1] === data.pair[1]) return sig.colourOf(u);
		return changeColour(changeOf(pair[0], pair[1], mode === "self" ? "self" : "inclusive"), u);
	};
}

function makePanes(tab) {
	tab.box.textContent = "";
	var specs = paneSpecs(tab.spec.id), trees = specs.map(function (spec) { return treeOf(spec.profile); });
	// panes side by side share their height, so their roots line up
	var sideBySide = trees.filter(function (t, k) { return specs[k].cls === "half"; });
	var deepest = Math.max.apply(null, sideBySide.map(function (t) { return t.maxDepth; }).concat([0]));
	sideBySide.forEach(function (t) { t.maxDepth = deepest; });
	tab.panes = specs.map(function (spec, position) {
		var box = tab.box.appendChild(el("div", {"class": "pane-cell" + (spec.cls ? " " + spec.cls : "")}));
		box.appendChild(el("div", {"class": "pane-label"}, spec.label));
		var tree = trees[position];
		if (!tree.count) {
			box.appendChild(el("div", {"class": "empty"}, "Nothing here: no stack " + (spec.part || "has a value") + "."));
		}
		var holder = box.appendChild(el("div"));
		var entry = {spec: spec, tree: tree, pane: null, box: box};
		var settings = data;
		if (spec.background) { settings = Object.create(data); settings.background = spec.background; }  // white frames need a darker ground
		entry.pane = Pane(holder, settings, {
			id: tab.spec.id + "-" + position, tree: tree, inverted: inverted, top: headerHeight, draw: false,
			colour: function (i) { var c = entry.spec.colour(entry.tree.map[i]); return [c, lightInk(c)]; },
			tooltipRows: function (i, row) { tooltipRows(entry.tree.map[i], row, entry.spec); },
		});
		link(tab, entry);
		return entry;
	});
}

// -- synchronised zoom and hover --------------------------------------------------------------------
var syncing = false;
function nearest(entry, u) {  // the pane's index of frame u, or of its deepest ancestor the pane has
	for (var a = u; a >= 0; a = parentOf[a]) if (entry.tree.back[a] >= 0) return entry.tree.back[a];
	return 0;
}
function apply(entry) {
	if (!entry.tree.count) return;
	var j = nearest(entry, focus.frame), t = entry.tree;
	if (t.map[j] === focus.frame && j) entry.pane.setView(t.start[j] + focus.lo * t.value[j], t.start[j] + focus.hi * t.value[j], j);
	else if (j) entry.pane.zoomTo(j);
	else if (focus.frame || (focus.lo <= 0 && focus.hi >= 1)) entry.pane.reset();
	else entry.pane.setView(focus.lo * t.total, focus.hi * t.total);
}
function link(tab, entry) {
	entry.pane.on("zoom", function (view) {
		if (syncing) return;
		var t = entry.tree, j = view.frame, span = t.count ? t.value[j] : 1;
		focus = {frame: t.count ? t.map[j] : 0, lo: t.count ? (view.x0 - t.start[j]) / span : 0, hi: t.count ? (view.x1 - t.start[j]) / span : 1};
		syncing = true;
		try { tab.panes.forEach(function (other) { if (other !== entry) apply(other); }); } finally { syncing = false; }
		afterZoom();
	});
	entry.pane.on("hover", function (hover) {
		var u = hover.frame >= 0 ? entry.tree.map[hover.frame] : -1;
		tab.panes.forEach(function (other) {
			if (other !== entry) other.pane.hover(u >= 0 && other.tree.back[u] >= 0 ? other.tree.back[u] : -1);
		});
		if (entry.spec.series) spark(u);
	});
	entry.pane.on("draw", function () { api.draws += 1; });
}
function afterZoom() {
	crumbs.textContent = "";
	if (!N) return;
	var chain = [];
	for (var a = focus.frame; a >= 0; a = parentOf[a]) chain.unshift(a);
	chain.forEach(function (u, position) {
		var name = names[nameOf[u]];
		if (position) crumbs.appendChild(el("span", {"class": "sep"}, "\u203a"));
		if (u === focus.frame) crumbs.appendChild(el("span", {"class": "here"}, name));
		else {
			var link = crumbs.appendChild(el("a", {"data-frame": String(u), title: "Zoom to " + name}, name));
			link.addEventListener("click", function () { zoomFrame(u); });
		}
	});
	var u = focus.frame;
	crumbs.appendChild(el("span", {"class": "amount"}, "A " + human(A.value[u]) + " \u2192 B " + human(B.value[u]) +
		" (" + human(B.value[u] - A.value[u], true) + ")"));
	resetButton.disabled = focus.frame === 0 && focus.lo === 0 && focus.hi === 1;
	updateMatched();
}
function zoomFrame(u) {
	focus = {frame: u, lo: 0, hi: 1};
	syncing = true;
	try { current.panes.forEach(apply); } finally { syncing = false; }
	afterZoom();
}
function first() { return current.panes[0].pane; }

// -- tooltips: both sides, the change, the test, the series --------------------------------------------
var BARS = "\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588";
function sparkline(u) {
	var most = 0, k;
	for (k = 0; k < K; k++) most = Math.max(most, profiles[k].value[u]);
	var text = "";
	for (k = 0; k < K; k++) text += most ? BARS[Math.round(7 * profiles[k].value[u] / most)] : BARS[0];
	return text;
}
function relative(change, before) {
	if (!before) return change ? "new" : "";
	var share = 100 * change / before;
	return (share > 0 ? "+" : "") + (Math.abs(share) >= 10 ? share.toFixed(0) : share.toFixed(1)) + "%";
}
function tooltipRows(u, row, spec) {
	var pair = spec.series ? [Math.max(seriesIndex - 1, 0), seriesIndex] : data.pair, P = profiles[pair[0]], Q = profiles[pair[1]];
	if (spec.part) row("This part", human(spec.profile.value[u]) + " of the " + spec.part + " stacks' " + human(spec.profile.total));
	if (spec.view === "whiteblack" && !(B.value[u] > 0)) row("Only in A", "this path disappeared in B");
	if (spec.view === "delta") row("|\u0394| below", human(spec.profile.value[u]));
	row(P.label, human(P.value[u]) + " (self " + human(P.self[u]) + ")");
	row(Q.label, human(Q.value[u]) + " (self " + human(Q.self[u]) + ")");
	var change = Q.value[u] - P.value[u], own = Q.self[u] - P.self[u];
	row("Change", human(change, true) + " " + relative(change, P.value[u]), change > 0 ? "up" : change < 0 ? "down" : "");
	row("Self change", human(own, true) + " " + relative(own, P.self[u]), own > 0 ? "up" : own < 0 ? "down" : "");
	if (sig && !spec.series) {
		var kind = sig.kind[sig.test[u]];
		var verdict = {untested: depthOf[u] ? "not tested" + (P.self[u] || Q.self[u] ? ": seen in too few runs" : " (no stack ends here)") : "",
			"not significant": "not significant", "within margin": "significant but within the margin",
			appeared: "significantly appeared", grown: "significantly grew", disappeared: "significantly disappeared",
			shrunk: "significantly shrank"}[kind];
		var callees = P.value[u] > P.self[u] || Q.value[u] > Q.self[u];  // the test is of the frame's own stack
		if (verdict) row(callees ? "Own stack" : "Test", verdict, kind === "appeared" || kind === "grown" ? "up" : kind === "disappeared" || kind === "shrunk" ? "down" : "");
		if (kind !== "untested") {
			row("p", "adjusted " + pValue(sig.p_adjusted[u]) + " (unadjusted " + pValue(sig.p[u]) + ")");
			row("Interval", human(sig.lower[u], true) + " to " + human(sig.upper[u], true));
		}
		if (sig.inside[u]) row("", "contains a significant change");
	}
	if (K > 2) row("Series", sparkline(u) + "  " + profiles.map(function (p) { return human(p.value[u]); }).join(" \u2192 "));
}
function pValue(p) { return p === 0 ? "0" : isFinite(p) ? Number(p.toPrecision(2)).toString() : "n/a"; }

// the series tab: the profile shown, and the hovered frame's values over all of them
var sparkPanel = null;
function spark(u) {
	if (!sparkPanel) return;
	sparkPanel.textContent = "";
	if (u < 0) { sparkPanel.appendChild(el("span", {"class": "muted"}, "Hover a frame for its value in every profile")); return; }
	sparkPanel.appendChild(el("b", {}, names[nameOf[u]]));
	sparkPanel.appendChild(el("span", {"class": "spark"}, sparkline(u)));
	profiles.forEach(function (p, k) {
		sparkPanel.appendChild(el("span", {"class": "point" + (k === seriesIndex ? " here" : "")}, p.label + ": " + human(p.value[u])));
	});
}

// -- legend ---------------------------------------------------------------------------------------------
function bar(spec) { legendBar(legend, spec); }
function swatches(items) {
	var row = legend.appendChild(el("div", {"class": "swatches"}));
	items.forEach(function (item) {
		var sw = row.appendChild(el("span", {"class": "swatch"}));
		sw.appendChild(el("span", {"class": "swatch-colour", style: "background:" + item[0]}));
		sw.appendChild(document.createTextNode(item[1]));
	});
}
function drawLegend() {
	legend.textContent = "";
	var id = current.spec.id;
	if (id === "whiteblack") {
		swatches([[WHITE, "in B (" + B.label + ")"], [BLACK, "only in A (" + A.label + "): paths that disappeared"]]);
		legend.appendChild(el("div", {"class": "note"}, "Widths: B's values, and A's for the paths only in A."));
	} else if (id === "series") {
		var change = seriesIndex ? changeOf(seriesIndex - 1, seriesIndex, mode === "self" ? "self" : "inclusive") : null;
		var select = legend.appendChild(el("div", {"class": "series"}));
		select.appendChild(el("span", {}, "Profile: "));
		profiles.forEach(function (p, k) {
			var button = select.appendChild(el("button", {"class": k === seriesIndex ? "on" : "", "data-k": String(k)}, p.label));
			button.addEventListener("click", function () { showProfile(k); });
		});
		if (change) bar({low: human(-change.largest, true).replace("-", "\u2212"), high: human(change.largest, true), stops: data.bars.inclusive.stops,
			meaning: "red: more than in " + profiles[seriesIndex - 1].label + ", blue: less"});
		sparkPanel = legend.appendChild(el("div", {id: "sparkpanel"}));
		spark(-1);
	} else if (id === "overlay" || id === "panes") {
		if (mode === "significance") {
			bar(sig.bar);
			swatches(sig.legend);
			legend.appendChild(el("div", {"class": "note"}, data.note));
		} else {
			bar(data.bars[mode]);
			legend.appendChild(el("div", {"class": "note"}, data.notes[mode]));
		}
	} else {
		var part = views[id], largest = changeScale(part.value), up = id === "appeared" || id === "grown";
		bar({low: "0", high: human(largest), stops: up ? [[0, "rgb(255,255,255)"], [1, "rgb(255,0,0)"]] : [[0, "rgb(255,255,255)"], [1, "rgb(0,0,255)"]],
			meaning: current.spec.tip + "; " + human(part.total) + " in all"});
	}
}

// -- switching ------------------------------------------------------------------------------------------
function show(id) {
	current = tabs[id];
	TABS.forEach(function (spec) {
		var tab = tabs[spec.id];
		tab.button.classList.toggle("on", spec.id === id);
		tab.box.style.display = spec.id === id ? "" : "none";
	});
	modeBox.style.visibility = id === "overlay" || id === "panes" || id === "series" ? "" : "hidden";
	drawLegend();
	if (!current.panes) makePanes(current);
	syncing = true;
	try {
		current.panes.forEach(function (entry) {
			entry.pane.setShape(inverted);
			entry.pane.search(searchPattern);
			apply(entry);
		});
	} finally { syncing = false; }
	afterZoom();
	remember();
}
// the series tab: another profile in the same pane (its frames, its colours), the zoom kept
function showProfile(k) {
	seriesIndex = k;
	var entry = current.panes[0];
	entry.spec = paneSpecs("series")[0];
	entry.tree = treeOf(entry.spec.profile);
	entry.box.firstChild.textContent = entry.spec.label;
	syncing = true;
	try { entry.pane.setTree(entry.tree); apply(entry); } finally { syncing = false; }
	drawLegend();
}
function setMode(m) {
	mode = m;
	MODES.forEach(function (spec) { document.getElementById("mode-" + spec[0]).classList.toggle("on", spec[0] === mode); });
	drawLegend();
	current.panes.forEach(function (entry) { entry.pane.draw(); });
	remember();
}
function setShape(icicle) {
	inverted = icicle;
	flameButton.classList.toggle("on", !icicle);
	icicleButton.classList.toggle("on", icicle);
	if (current && current.panes) current.panes.forEach(function (entry) { entry.pane.setShape(icicle); });
}
function updateMatched() { searchUi.update(); }
function reset() { zoomFrame(0); }

// the tab and colour in the URL's fragment (#tab=...&colour=...)
function remember() {
	if (!api.ready) return;
	var hash = "#tab=" + current.spec.id + "&colour=" + mode;
	replaceFragment(hash);
}

document.addEventListener("keydown", function (e) {
	if (searchUi.key(e)) return;
	if (e.ctrlKey || e.metaKey || e.altKey) return;
	if (e.key === "Escape") reset();
	else if (e.key === "+" || e.key === "=") first().zoomBy(0.5, 0.5);
	else if (e.key === "-" || e.key === "_") first().zoomBy(2, 0.5);
	else if (e.key === "ArrowLeft") first().pan(-0.1);
	else if (e.key === "ArrowRight") first().pan(0.1);
	else if (e.key === "ArrowUp" || e.key === "Backspace") first().up();
	else if (/^[1-9]$/.test(e.key) && TABS[parseInt(e.key, 10) - 1]) show(TABS[parseInt(e.key, 10) - 1].id);
	else return;
	e.preventDefault();
});
resetButton.addEventListener("click", reset);
flameButton.addEventListener("click", function () { setShape(false); });
icicleButton.addEventListener("click", function () { setShape(true); });

// -- start ------------------------------------------------------------------------------------------------
var state = parseFragment(window.location.hash);
if (MODES.some(function (m) { return m[0] === state.colour; })) mode = state.colour;
setShape(inverted);
if (!N) main.appendChild(el("div", {id: "empty"}, "No stack counts found: nothing to compare."));
show(tabs[state.tab] ? state.tab : K > 2 ? "series" : "overlay");
setMode(mode);
api.ready = true;
remember();
// for tests and tools: the tabs, the panes of the current tab, the frame in focus
api.show = show;
api.showProfile = showProfile;
api.setMode = setMode;
api.tab = function () { return current.spec.id; };
api.panes = function () { return current.panes.map(function (entry) { return entry.pane; }); };
api.focus = function () { return {frame: focus.frame, lo: focus.lo, hi: focus.hi, path: focus.frame ? current.panes[0].pane.pathOf(nearest(current.panes[0], focus.frame)) : []}; };
api.frameOf = function (position, i) { return current.panes[position].tree.map[i]; };
api.colours = function (position) {  // the fill of every frame of a pane of the current tab
	var entry = current.panes[position], out = [];
	for (var i = 0; i < entry.tree.count; i++) out.push(entry.spec.colour(entry.tree.map[i]));
	return out;
};
api.lightInk = lightInk;
// what the page derived from the payload's rows: a profile's (by position) or a view's (by name) columns
// per frame, and a compare result's tests and colours per frame (tests hold them to read_comparison's)
api.derived = function (which) {
	var P = typeof which === "number" ? profiles[which] : views[which];
	return {total: P.total, start: Array.from(P.start), value: Array.from(P.value), self: Array.from(P.self)};
};
api.significance = function () {
	if (!sig) return null;
	var out = {colour: []};
	["test", "inside", "p", "p_adjusted", "lower", "upper"].forEach(function (key) { out[key] = Array.from(sig[key]); });
	for (var u = 0; u < N; u++) out.colour.push(sig.colourOf(u));
	return out;
};
window.requestAnimationFrame(function () { api.firstPaint = performance.now(); });
