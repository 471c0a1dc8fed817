// flamespace HTML viewer: the single-profile page (render/html.py's payload). Flame graphs are drawn on
// canvases by the pane (pane.mjs); the payload is in value units and a pane turns the frames of its
// current view into pixels on every draw, visiting only frames wider than a pixel (narrower neighbours
// merged into one "(small)" block per row, their subtrees skipped), so a draw costs what is visible.
// main() runs when the page holds a <script id="flamespace-data"> payload; the page also publishes the
// pane as window.FlamespacePane(container, payload, options) for pages built outside this folder.
import { el, legendBar, tooltipElement } from "./dom.mjs";
import { parseFragment, fragmentOf, replaceFragment, spanOf, viewerParts } from "./fragment.mjs";
import { ROW } from "./layout.mjs";
import { Minimap } from "./minimap.mjs";
import { Pane } from "./pane.mjs";
import { column, decode } from "./payload.mjs";
import { Search, compileSearch, escapeRegex, paneMatched } from "./search.mjs";
import { TransformRunner, WORKER_FRAMES } from "./transform_runner.mjs";
import { kit } from "./tree_kit.mjs";
import { formatter, percent } from "./units.mjs";

function main(data) {
	if (data.version !== 1) throw new Error("flamespace viewer: unknown payload version " + data.version);
	var api = {ready: false, draws: 0};
	window.flamespaceViewer = api;
	var names = data.names, human = formatter(data.units).human, base = decode(data), total = data.total;
	// an inverted tree or a callers' tree stops at frames narrower than this (render/html.py says why)
	var minValue = total * (data.transform_min_percent || 0) / 100, nameIndexes = null;
	function nameIndex(text) {  // a name's index in the string table, added if new (group names, sandwich roots)
		if (nameIndexes === null) { nameIndexes = new Map(); names.forEach(function (name, k) { nameIndexes.set(name, k); }); }
		var k = nameIndexes.get(text);
		if (k === undefined) { k = names.length; names.push(text); nameIndexes.set(text, k); }
		return k;
	}
	function matcher(pattern) {
		var match = new Uint8Array(names.length + 64);
		for (var j = 0; j < names.length; j++) match[j] = pattern.test(names[j]) ? 1 : 0;
		return match;
	}

	// -- the header: it stays in view -----------------------------------------------------------------
	var header = el("header");
	header.appendChild(el("h1", {id: "title"}, data.title));
	header.appendChild(el("div", {id: "subtitle"}, data.subtitle || ""));
	var toolbar = header.appendChild(el("div", {"class": "toolbar"}));
	var resetButton = toolbar.appendChild(el("button", {id: "reset", title: "Show the whole graph (Esc)"}, "Reset zoom"));
	var shape = toolbar.appendChild(el("span", {"class": "segmented"}));
	var flameButton = shape.appendChild(el("button", {id: "flame", title: "Root at the bottom"}, "Flame"));
	var icicleButton = shape.appendChild(el("button", {id: "icicle", title: "Root at the top"}, "Icicle"));
	var views = toolbar.appendChild(el("span", {"class": "segmented"}));
	var graphButton = views.appendChild(el("button", {id: "view-graph", title: "The flame graph"}, "Graph"));
	var sandwichButton = views.appendChild(el("button", {id: "view-sandwich", title: "Callers and callees of one function: pick it in the table or from a frame's menu (right click)"}, "Sandwich"));
	toolbar.appendChild(el("span", {id: "hint", title: "Click a frame to zoom in (again: out); Ctrl+wheel zooms, Shift+wheel pans; \u2190 \u2192 + \u2212 \u2191; / searches; Esc resets the zoom, then the search"},
		"Click: zoom \u00b7 right click: more \u00b7 Esc: reset"));
	toolbar.appendChild(el("span", {"class": "grow"}));
	var keepTable = false;  // a search from the table keeps its row picked
	var searchUi = Search(toolbar, {keys: false, matched: function () { return paneMatched(pane); }, run: function (pattern, text) {
		searchTerm = text;
		if (!keepTable) picked = -1;
		panes().forEach(function (p) { p.search(pattern); });
		tableFilter = picked < 0 ? pane.matches() : null;
		fillTable();
		remember();
	}});
	var caseBox = searchUi.ignoreCaseBox;
	// transforms: recomputed in the page from the payload's frames
	var tools = header.appendChild(el("div", {"class": "toolbar", id: "transforms"}));
	var threadSelect = null;
	if (data.roots && data.roots.length && base.count) {
		threadSelect = tools.appendChild(el("select", {id: "thread", title: "Show one " + data.roots.join(" or ")}));
		var plural = {process: "processes", thread: "threads"};
		threadSelect.appendChild(el("option", {value: "-1"}, "All " + data.roots.map(function (r) { return plural[r] || r + "s"; }).join(" and ")));
		for (var i = 1; i < base.count; i++) {
			var depth = base.depth[i];
			if (depth > data.roots.length) continue;
			threadSelect.appendChild(el("option", {value: String(i)}, "\u2003".repeat(depth - 1) + data.roots[depth - 1] + ": " +
				names[base.name[i]] + " \u2014 " + human(base.value[i]) + " (" + percent(base.value[i], total) + ")"));
		}
	}
	function check(id, label, title) {
		var wrap = tools.appendChild(el("label", {"class": "check", title: title}));
		var box = wrap.appendChild(el("input", {id: id, type: "checkbox"}));
		wrap.appendChild(document.createTextNode(label));
		return box;
	}
	var leftHeavyBox = check("left-heavy", "Left heavy", "Siblings widest first (else by name)");
	var invertBox = check("invert", "Invert", "Leaves become roots: who spends time, then who called them");
	var recursionBox = check("recursion", "Collapse recursion", "A function called by itself merges into its caller");
	// the library rule's regexes, [regex, label], from the page (core/library.py: the terminal tree folds by the same)
	var PRESETS = [["", "presets"]].concat(data.presets || []);
	function regexField(id, label, title) {
		tools.appendChild(el("span", {"class": "label"}, label));
		var input = tools.appendChild(el("input", {id: id, type: "text", "class": "regex", placeholder: "regex", title: title, spellcheck: "false", autocomplete: "off"}));
		var presets = tools.appendChild(el("select", {id: id + "-preset", title: "Fill in a regex"}));
		PRESETS.forEach(function (p) { presets.appendChild(el("option", {value: p[0]}, p[1])); });
		presets.addEventListener("change", function () { if (presets.value) { input.value = presets.value; apply(); } presets.value = ""; });
		return input;
	}
	var mergeBox = regexField("merge", "Merge", "Frames matching this leave the graph; their callees move to their caller");
	var hideBox = regexField("hide", "Hide", "Frames matching this leave the graph with all their callees (the total shrinks)");
	var focusChip = tools.appendChild(el("span", {id: "focus", "class": "chip"}));
	var workingText = tools.appendChild(el("span", {id: "working", role: "status"}));
	var clearButton = tools.appendChild(el("button", {id: "clear-transforms", title: "Undo every transform"}, "Clear"));
	var minimapCanvas = header.appendChild(el("canvas", {id: "minimap", title: "The whole graph: drag the window to pan"}));
	var crumbs = header.appendChild(el("div", {id: "crumbs"}));
	document.body.appendChild(header);
	var legend = document.body.appendChild(el("div", {id: "legend"}));
	if (data.legend) drawLegend(data.legend);
	var graph = document.body.appendChild(el("div", {id: "graph"}));
	tooltipElement();
	function headerHeight() { return header.getBoundingClientRect().height; }
	var pane = Pane(graph, data, {id: "canvas", inverted: !!data.inverted, top: headerHeight, draw: false, tree: base});
	var runner = TransformRunner(base, names);
	var searchTerm = "", picked = -1, tableFilter = null, view = "graph";
	var focus = null;  // {text, group}: the function all of whose calls are the root
	var sandwich = null, sandwichPanes = null;  // {text, group}; the callers' and callees' panes
	var minimap = Minimap(minimapCanvas, pane, function () { remember(); });

	function drawLegend(spec) {
		if (spec.items) {  // a palette's key: what each colour family means
			var row = legend.appendChild(el("div", {"class": "key"}));
			spec.items.forEach(function (item) {
				var entry = row.appendChild(el("span", {"class": "entry"}));
				entry.appendChild(el("span", {"class": "swatch", style: "background: " + item[1]}));
				entry.appendChild(document.createTextNode(item[0]));
			});
		} else {
			legendBar(legend, spec);
		}
		legend.appendChild(el("div", {"class": "note"}, spec.note));
	}

	// -- zoom: the breadcrumbs and what is shown ------------------------------------------------------
	function crumbsOf() {
		var v = pane.view(), zoom = v.frame, tree = pane.tree();
		crumbs.textContent = "";
		var chain = [];
		if (tree.count) for (var a = zoom; a >= 0; a = tree.parent[a]) chain.unshift(a);
		chain.forEach(function (j, position) {
			var name = names[tree.name[j]];
			if (position) crumbs.appendChild(el("span", {"class": "sep"}, "\u203a"));
			if (j === zoom) {
				crumbs.appendChild(el("span", {"class": "here"}, name));
			} else {
				var link = crumbs.appendChild(el("a", {"data-frame": String(j), title: "Zoom to " + name}, name));
				link.addEventListener("click", function () { pane.zoomTo(j); });
			}
		});
		var shown = v.x1 - v.x0;
		crumbs.appendChild(el("span", {"class": "amount"}, human(shown) + " \u00b7 " + (v.total !== total || transformsActive() ?
			percent(shown, v.total) + " of the transformed graph, " + percent(shown, total) + " of the total" : percent(shown, total) + " of the total")));
		resetButton.disabled = zoom === 0 && v.x0 === 0 && v.x1 === v.total;
	}
	pane.on("zoom", function () { crumbsOf(); updateMatched(); minimap.render(); if (!minimap.dragging()) remember(); });
	pane.on("draw", function (detail) { api.lastDraw = detail.ms; api.draws += 1; });

	// -- search -------------------------------------------------------------------------------------
	function panes() { return view === "sandwich" && sandwichPanes ? [pane, sandwichPanes[0], sandwichPanes[1]] : [pane]; }
	// the search for `term` (and with the case ignored or not, if given); keep: the table's picked row stays
	function search(term, keep, ignoreCase) {
		keepTable = !!keep;
		try { searchUi.set(term, ignoreCase); } finally { keepTable = false; }
	}
	function updateMatched() { searchUi.update(); }

	// -- transforms ------------------------------------------------------------------------------------
	// a function as the table names it: by line, the name itself; by function, "f (app.py)" stands for
	// "f (app.py)" and "f (app.py:N)" (and "file.c" for "file.c:N"), as flamespace.core.ranking groups them
	function termFor(text, group) {
		if (group !== "function") return "^" + escapeRegex(text) + "$";
		if (text.slice(-1) === ")") return "^" + escapeRegex(text.slice(0, -1)) + "(:\\d+)?\\)$";
		return "^" + escapeRegex(text) + "(:\\d+)?$";
	}
	function transformsActive() {
		return !!(leftHeavyBox.checked || invertBox.checked || recursionBox.checked || mergeBox.value || hideBox.value || focus ||
			(threadSelect && threadSelect.value !== "-1"));
	}
	// Recomputes the drawn tree from the controls (in a worker on a big page: TransformRunner), then `done`.
	// waiting: the callbacks of applies not shown yet (one cancelled by a newer apply is done when that one is)
	var shows = 0, tablePending = false, waiting = [];
	function apply(done) {
		if (done) waiting.push(done);
		var spec = {byValue: leftHeavyBox.checked, invert: invertBox.checked, recursion: recursionBox.checked,
			only: threadSelect ? parseInt(threadSelect.value, 10) : -1, minValue: minValue, change: data.change,
			ownDelta: data.delta === "self"};
		[[mergeBox, "merge"], [hideBox, "drop"]].forEach(function (field) {
			var pattern = compileSearch(field[0].value, false);
			field[0].classList.toggle("bad", pattern === undefined);
			if (pattern) spec[field[1]] = matcher(pattern);
		});
		if (focus) { spec.focus = matcher(new RegExp(termFor(focus.text, focus.group))); spec.root = nameIndex(focus.text); }
		focusChip.textContent = "";
		focusChip.style.display = focus ? "" : "none";
		if (focus) {
			focusChip.appendChild(document.createTextNode("Focus: " + focus.text + " "));
			var close = focusChip.appendChild(el("button", {id: "unfocus", title: "Show every function again"}, "\u00d7"));
			close.addEventListener("click", function () { focus = null; apply(); });
		}
		var active = transformsActive(), began = performance.now();
		clearButton.disabled = !active;
		// the new tree drawn; from a worker, the table in a task of its own (the page's longest task halved)
		function show(tree, computed, where) {
			var token = ++shows;
			working(false);
			pane.setTree(tree);
			tables = computed || {};
			for (var key in tables) tables[key].computed = true;
			tablePending = where === "worker";
			if (tablePending) setTimeout(rest, 0); else rest();
			function rest() {
				if (token !== shows) return;  // another tree is shown since
				tablePending = false;
				fn = tableOf(grouping);
				tableFilter = picked < 0 ? pane.matches() : null;
				fillTable();
				if (view === "sandwich" && sandwich) showSandwich(sandwich);
				remember();
				api.transforms += 1;
				api.lastTransform = {where: where, ms: performance.now() - began};
				var callbacks = waiting;
				waiting = [];
				callbacks.forEach(function (callback) { callback(); });
			}
		}
		if (!active) { runner.cancel(); show(base, null, "none"); return; }
		working(true);
		var groups = [{key: "line", map: null}];
		if (hasFunctions) groups.push({key: "function", map: groupsOf("function")});
		runner.run(spec, groups, show);
	}
	// "Working…" while a transform runs in the worker (the graph shows the tree before it, dimmed)
	function working(on) {
		document.body.classList.toggle("transforming", on);
		workingText.textContent = on ? "Working\u2026" : "";
	}
	[leftHeavyBox, invertBox, recursionBox].forEach(function (box) { box.addEventListener("change", function () { apply(); }); });
	[mergeBox, hideBox].forEach(function (box) { box.addEventListener("input", function () { apply(); }); });
	if (threadSelect) threadSelect.addEventListener("change", function () { apply(); });
	clearButton.addEventListener("click", function () {
		leftHeavyBox.checked = invertBox.checked = recursionBox.checked = false;
		mergeBox.value = hideBox.value = "";
		if (threadSelect) threadSelect.value = "-1";
		focus = null;
		apply();
	});
	function focusOn(text, group) { focus = {text: text, group: group}; setView("graph"); apply(); }

	// -- sandwich: the callers of one function above it, its callees below ---------------------------------
	var sandwichSection = document.body.appendChild(el("section", {id: "sandwich"}));
	var sandwichHeading = sandwichSection.appendChild(el("h2"));
	var callersBox = sandwichSection.appendChild(el("div", {"class": "scroll", id: "callers-box"}));
	callersBox.appendChild(el("div", {"class": "caption"}, "Callers (the function at the bottom, who called it above)"));
	var callersGraph = callersBox.appendChild(el("div", {id: "callers"}));
	var calleesBox = sandwichSection.appendChild(el("div", {"class": "scroll", id: "callees-box"}));
	calleesBox.appendChild(el("div", {"class": "caption"}, "Callees (the function at the top, what it called below)"));
	var calleesGraph = calleesBox.appendChild(el("div", {id: "callees"}));
	sandwichSection.style.display = "none";
	function showSandwich(which) {
		sandwich = which;
		var tree = pane.tree(), match = matcher(new RegExp(termFor(which.text, which.group))), root = nameIndex(which.text);
		var up = kit.callers(tree, names, match, root, tree.colour[0], minValue), down = kit.transform(tree, names, {focus: match, root: root, change: data.change, ownDelta: data.delta === "self"});
		if (!sandwichPanes) {
			var common = {margin: 0, minHeight: 3 * ROW, top: function () { return 0; }};
			sandwichPanes = [
				Pane(callersGraph, data, Object.assign({id: "callers-canvas", tree: up, scroller: callersBox, draw: false}, common)),
				Pane(calleesGraph, data, Object.assign({id: "callees-canvas", tree: down, inverted: true, scroller: calleesBox, draw: false}, common)),
			];
			sandwichPanes.forEach(function (p) { p.on("context", contextMenu(p)); });
		} else {
			sandwichPanes[0].setTree(up);
			sandwichPanes[1].setTree(down);
		}
		sandwichHeading.textContent = "";
		sandwichHeading.appendChild(el("span", {"class": "name"}, which.text));
		sandwichHeading.appendChild(el("span", {"class": "note"}, human(down.total) + " \u00b7 " + percent(down.total, total) +
			" of the total, in all its calls" + (which.group === "function" ? " (all its lines)" : "")));
		var back = sandwichHeading.appendChild(el("button", {id: "close-sandwich", title: "Back to the graph (Esc)"}, "Back to the graph"));
		back.addEventListener("click", function () { setView("graph"); });
		setView("sandwich");
		var pattern = searchUi.pattern();
		sandwichPanes.forEach(function (p) { p.search(pattern); p.draw(); });
		callersBox.scrollTop = callersBox.scrollHeight;  // the function, at the callers' bottom, next to its callees
		sandwichPanes[0].draw();
	}
	function setView(which) {
		view = which === "sandwich" && sandwich ? "sandwich" : "graph";
		graphButton.classList.toggle("on", view === "graph");
		sandwichButton.classList.toggle("on", view === "sandwich");
		sandwichButton.disabled = !sandwich;
		sandwichSection.style.display = view === "sandwich" ? "" : "none";
		graph.style.display = view === "graph" && base.count ? "" : "none";
		minimapCanvas.style.display = view === "graph" && base.count ? "" : "none";
		crumbs.style.visibility = view === "graph" ? "" : "hidden";
		if (view === "graph") { pane.draw(); minimap.render(); }
		remember();
	}
	graphButton.addEventListener("click", function () { setView("graph"); });
	sandwichButton.addEventListener("click", function () { if (sandwich) showSandwich(sandwich); });

	// -- a frame's menu (right click) -------------------------------------------------------------------
	var menu = document.body.appendChild(el("div", {id: "menu"}));
	function closeMenu() { menu.style.display = "none"; }
	function contextMenu(owner) {
		return function (detail) {
			var text = names[owner.tree().name[detail.frame]], e = detail.event;
			menu.textContent = "";
			menu.appendChild(el("div", {"class": "title"}, text));
			var items = [];
			if (owner === pane) items.push(["zoom", "Zoom to this frame", function () { pane.zoomTo(detail.frame); }]);
			items.push(["sandwich", "Callers and callees (sandwich)", function () { showSandwich({text: text, group: "line"}); }]);
			items.push(["focus", "Focus on it: all its calls as the root", function () { focusOn(text, "line"); }]);
			items.push(["merge", "Merge it (keep its callees)", function () { addRegex(mergeBox, text); }]);
			items.push(["hide", "Hide it and its callees", function () { addRegex(hideBox, text); }]);
			items.push(["highlight", "Highlight it", function () { search(termFor(text, "line"), false, false); }]);
			items.forEach(function (item) {
				var button = menu.appendChild(el("button", {"data-action": item[0]}, item[1]));
				button.addEventListener("click", function () { closeMenu(); item[2](); });
			});
			menu.style.display = "block";
			var w = menu.offsetWidth, h = menu.offsetHeight;
			menu.style.left = Math.max(4, Math.min(e.clientX, window.innerWidth - w - 4)) + "px";
			menu.style.top = Math.max(4, Math.min(e.clientY, window.innerHeight - h - 4)) + "px";
		};
	}
	function addRegex(input, text) {
		var term = termFor(text, "line");
		input.value = input.value ? input.value + "|" + term : term;
		setView("graph");
		apply();
	}
	pane.on("context", contextMenu(pane));
	document.addEventListener("mousedown", function (e) { if (!menu.contains(e.target)) closeMenu(); });

	// -- keys ----------------------------------------------------------------------------------------
	document.addEventListener("keydown", function (e) {
		if (searchUi.key(e)) return;
		if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") {
			if (e.key === "Escape") e.target.blur();
			return;
		}
		if (e.ctrlKey || e.metaKey || e.altKey) return;
		if (e.key === "Escape") escape();
		else if (view !== "graph") return;
		else if (e.key === "+" || e.key === "=") pane.zoomBy(0.5, 0.5);
		else if (e.key === "-" || e.key === "_") pane.zoomBy(2, 0.5);
		else if (e.key === "ArrowLeft") pane.pan(-0.1);
		else if (e.key === "ArrowRight") pane.pan(0.1);
		else if (e.key === "ArrowUp" || e.key === "Backspace") pane.up();
		else return;
		e.preventDefault();
	});
	// Esc: close the menu, else reset the zoom, else leave the sandwich, else clear the search
	function escape() {
		if (menu.style.display === "block") { closeMenu(); return; }
		var shown = view === "sandwich" ? sandwichPanes : [pane];
		var zoomed = shown.filter(function (p) { var v = p.view(); return v.frame || v.x0 || v.x1 !== v.total; });
		if (zoomed.length) zoomed.forEach(function (p) { p.reset(); });
		else if (view === "sandwich") setView("graph");
		else if (searchTerm) search("");
	}
	resetButton.addEventListener("click", function () { pane.reset(); });
	function setShape(icicle) {
		flameButton.classList.toggle("on", !icicle);
		icicleButton.classList.toggle("on", icicle);
		pane.setShape(icicle);
		minimap.render();
		remember();
	}
	flameButton.addEventListener("click", function () { setShape(false); });
	icicleButton.addEventListener("click", function () { setShape(true); });

	// -- the view in the URL's fragment (#z=FRAME or #x=FROM,TO; s=TERM; ic; icicle/flame; transforms;
	// sandwich): kept on reload and in links
	var restoring = true;
	function remember() {
		if (restoring) return;
		var v = pane.view(), tree = pane.tree(), zoom = v.frame;
		replaceFragment(fragmentOf(viewerParts({zoom: zoom, x0: v.x0, x1: v.x1, total: v.total, zoomStart: tree.start[zoom],
			zoomEnd: tree.start[zoom] + tree.value[zoom], term: searchTerm, ignoreCase: caseBox.checked,
			shape: pane.inverted() !== !!data.inverted ? (pane.inverted() ? "icicle" : "flame") : "",
			leftHeavy: leftHeavyBox.checked, invert: invertBox.checked, recursion: recursionBox.checked, merge: mergeBox.value,
			hide: hideBox.value, only: threadSelect ? parseInt(threadSelect.value, 10) : -1, focus: focus,
			sandwich: view === "sandwich" ? sandwich : null})));
	}
	function restore(done) {
		var state = parseFragment(window.location.hash);
		if ("icicle" in state) setShape(true);
		if ("flame" in state) setShape(false);
		if ("ic" in state) caseBox.checked = true;
		leftHeavyBox.checked = "lh" in state;
		invertBox.checked = "inv" in state;
		recursionBox.checked = "rec" in state;
		mergeBox.value = state.merge || "";
		hideBox.value = state.hide || "";
		if (threadSelect && state.only && threadSelect.querySelector("option[value='" + parseInt(state.only, 10) + "']")) threadSelect.value = String(parseInt(state.only, 10));
		if (state.focus || state.focusf) focus = {text: state.focus || state.focusf, group: state.focusf ? "function" : "line"};
		if (transformsActive()) apply(rest); else rest();
		function rest() {  // once the transformed tree is drawn
			if (state.s) search(state.s);
			var frame = parseInt(state.z, 10);
			if (frame > 0 && frame < pane.tree().count) pane.zoomTo(frame);
			else if (spanOf(state.x)) pane.setView(spanOf(state.x)[0], spanOf(state.x)[1]);
			if (state.sw || state.swf) showSandwich({text: state.sw || state.swf, group: state.swf ? "function" : "line"});
			restoring = false;
			done();
		}
	}

	// -- the table of functions (by line: frame names as they are; by function: line numbers left out) --------
	// From the payload (the whole profile, exact), or with transforms from the frames drawn.
	var tables = {}, grouping = "line", fn = null, hasFunctions = !!data.functions["function"];
	var groupRule = data.function_group ? new RegExp(data.function_group[0]) : null;
	function tableOf(group) {  // decoded (or computed) on first use
		if (!tables[group]) {
			if (transformsActive()) {
				tables[group] = kit.functionCosts(pane.tree(), groupsOf(group));
				tables[group].computed = true;
			} else {
				var T = data.functions[group], decoded = {count: T.count};
				["name", "self", "inclusive", "delta_self", "delta_inclusive", "calls"].forEach(function (key) {
					if (T[key]) decoded[key] = column(T[key]);
				});
				tables[group] = decoded;
			}
		}
		return tables[group];
	}
	// each name's group in the table by function (as functionCosts' groupOf; null: by line, each name its own)
	var groupCache = {length: -1, map: null};
	function groupsOf(group) {
		if (group === "line" || !groupRule) return null;
		if (groupCache.length !== names.length) {
			var map = new Int32Array(names.length);
			for (var k = 0; k < map.length; k++) map[k] = nameIndex(names[k].replace(groupRule, data.function_group[1]));
			groupCache = {length: names.length, map: map};
		}
		return groupCache.map;
	}
	fn = tableOf(grouping);
	var section = document.body.appendChild(el("section", {id: "functions"}));
	var heading = section.appendChild(el("h2", {}, "Functions "));
	if (hasFunctions) {
		var groupButtons = heading.appendChild(el("span", {"class": "segmented"}));
		[["line", "By line"], ["function", "By function"]].forEach(function (g) {
			var button = groupButtons.appendChild(el("button", {id: "by-" + g[0], title: g[0] === "line" ? "Each frame name: f (app.py:12)" : "Lines of one function together: f (app.py)"}, g[1]));
			button.addEventListener("click", function () { grouping = g[0]; fn = tableOf(grouping); picked = -1; fillTable(); });
		});
	}
	var tableNote = heading.appendChild(el("span", {"class": "note"}));
	var table = section.appendChild(el("table", {id: "table"}));
	var headRow = table.appendChild(el("thead")).appendChild(el("tr"));
	var body = table.appendChild(el("tbody"));
	// each row's buttons (copied into every row) and one listener for the rows' clicks (rows are rebuilt
	// after every transform: no listener per row)
	var rowActions = el("td", {"class": "actions"});
	rowActions.appendChild(el("button", {"data-action": "sandwich", title: "Who calls it and what it calls"}, "callers & callees"));
	rowActions.appendChild(el("button", {"data-action": "focus", title: "All its calls as the root of the graph"}, "focus"));
	body.addEventListener("click", function (e) {
		var tr = e.target.closest("tr[data-row]"), button = e.target.closest("button[data-action]");
		if (!tr) return;
		var name = fn.name[parseInt(tr.getAttribute("data-row"), 10)], text = names[name];
		if (!button) pick(name);
		else if (button.getAttribute("data-action") === "sandwich") showSandwich({text: text, group: grouping});
		else focusOn(text, grouping);
	});
	var sortKey = "inclusive", descending = true, COLUMNS = [];
	function columnsOf() {
		var columns = [
			{key: "name", title: "Function", field: null},
			{key: "self", title: "Self", field: "self"},
			{key: "self_share", title: "Self %", field: "self", share: true},
			{key: "inclusive", title: "Inclusive", field: "inclusive"},
			{key: "inclusive_share", title: "Inclusive %", field: "inclusive", share: true},
		];
		if (fn.calls) columns.push({key: "calls", title: "Calls", field: "calls", plain: true});
		if (fn.delta_self) {
			columns.push({key: "delta_self", title: "\u0394 Self", field: "delta_self", signed: true});
			columns.push({key: "delta_inclusive", title: "\u0394 Inclusive", field: "delta_inclusive", signed: true});
		}
		return columns;
	}
	function fillHead() {
		var columns = columnsOf();
		if (columns.map(function (c) { return c.key; }).join() === COLUMNS.map(function (c) { return c.key; }).join()) return;
		COLUMNS = columns;
		if (!COLUMNS.some(function (c) { return c.key === sortKey; })) { sortKey = "inclusive"; descending = true; }
		headRow.textContent = "";
		COLUMNS.forEach(function (spec) {
			var th = headRow.appendChild(el("th", {"data-key": spec.key, title: "Sort by " + spec.title}, spec.title));
			th.addEventListener("click", function () {
				if (sortKey === spec.key) descending = !descending;
				else { sortKey = spec.key; descending = spec.key !== "name"; }
				fillTable();
			});
		});
		headRow.appendChild(el("th", {"class": "actions"}));
	}
	function fillTable() {
		fillHead();
		var spec = COLUMNS.filter(function (c) { return c.key === sortKey; })[0];
		var fnName = fn.name, order = [];
		for (var r = 0; r < fnName.length; r++) if (tableFilter === null || tableFilter[fnName[r]]) order.push(r);
		var values = spec.field === null ? null : fn[spec.field], sign = descending ? -1 : 1;
		order.sort(function (a, b) {
			var byKey = values === null ? (names[fnName[a]] < names[fnName[b]] ? -1 : names[fnName[a]] > names[fnName[b]] ? 1 : 0)
				: (spec.signed ? Math.abs(values[a]) - Math.abs(values[b]) : values[a] - values[b]);
			return sign * byKey || a - b;
		});
		var rows = order.slice(0, data.top), whole = pane.tree().total || total;
		body.textContent = "";
		var fragment = document.createDocumentFragment();
		rows.forEach(function (r) {
			var tr = el("tr", {"data-row": String(r)});
			if (fnName[r] === picked) tr.className = "picked";
			COLUMNS.forEach(function (c) {
				var td = tr.appendChild(el("td")), v = c.field === null ? 0 : fn[c.field][r];
				if (c.field === null) { td.textContent = names[fnName[r]]; td.title = names[fnName[r]]; }
				else if (c.share) {
					td.appendChild(el("span", {"class": "share", style: "width:" + (40 * v / whole).toFixed(1) + "px"}));
					td.appendChild(document.createTextNode(percent(v, whole)));
				} else if (c.plain) {
					td.textContent = v.toLocaleString("en");
				} else {
					if (c.signed && data.negate) v = -v;  // as the tooltip: --negate swaps the sides
					td.textContent = human(v, !!c.signed);
					if (c.signed) td.className = v > 0 ? "up" : v < 0 ? "down" : "";
				}
			});
			tr.appendChild(rowActions.cloneNode(true));  // their clicks: rowClick
			fragment.appendChild(tr);
		});
		body.appendChild(fragment);
		Array.prototype.forEach.call(headRow.children, function (th) {
			if (th.hasAttribute("data-key")) th.className = th.getAttribute("data-key") === sortKey ? "sorted" + (descending ? "" : " asc") : "";
		});
		Array.prototype.forEach.call(heading.querySelectorAll(".segmented button"), function (button) {
			button.classList.toggle("on", button.id === "by-" + grouping);
		});
		var count = fn.count, noun = grouping === "line" ? "frame name" : "function";
		tableNote.textContent = (order.length < count ? order.length.toLocaleString("en") + " of " : "") + count.toLocaleString("en") +
			" " + noun + (count === 1 ? "" : "s") + (rows.length < order.length ? ", the first " + rows.length + " shown" : "") +
			(fn.computed ? " (of the transformed graph)" : "") + " \u00b7 click a row to highlight its frames";
	}
	function pick(name) {
		picked = name;
		var term = termFor(names[name], grouping);
		setView("graph");
		pane.reset();
		search(term, true, false);
		var top = graph.getBoundingClientRect().top - headerHeight();
		if (top < 0 || top > window.innerHeight / 2) window.scrollBy(0, top - 4);
	}

	// -- start ------------------------------------------------------------------------------------
	var n = base.count;
	if (!n) {
		section.style.display = "none";
		tools.style.display = "none";
		minimapCanvas.style.display = "none";
		document.body.appendChild(el("div", {id: "empty"}, "No stack counts found: nothing to draw."));
	}
	setView("graph");
	setShape(pane.inverted());
	clearButton.disabled = true;
	focusChip.style.display = "none";
	crumbsOf();
	fillTable();
	window.addEventListener("resize", function () { document.documentElement.style.setProperty("--header", headerHeight() + "px"); });
	api.pane = pane;
	api.sandwich = function () { return sandwichPanes; };
	api.human = human;
	api.count = n;
	api.fit = pane.fit;
	api.charWidth = pane.charWidth;
	api.drawn = pane.drawn;
	api.width = function (i) { return pane.tree().value[i] / pane.tree().total; };
	api.zoomTo = pane.zoomTo;
	api.reset = pane.reset;
	api.zoomBy = pane.zoomBy;
	api.search = function (term) { search(term); };
	api.state = function () {
		var v = pane.view();
		return {zoom: v.frame, name: names[pane.tree().name[v.frame]], x0: v.x0, x1: v.x1, inverted: pane.inverted(),
			matched: pane.matched(), term: searchTerm, total: v.total, view: view};
	};
	api.transforms = 0;  // transforms shown so far (lastTransform: {where: "worker", "main" or "none", ms})
	api.busy = function () { return runner.busy() || tablePending; };  // a transform is running in the worker, or its table waits
	api.transformsIn = runner.setMode;  // "auto", "worker" or "main" (tests compare the two)
	if (n) restore(started); else { restoring = false; started(); }
	function started() {  // the view restored from the fragment (after its transforms)
		document.documentElement.style.setProperty("--header", headerHeight() + "px");
		pane.size();
		var band = pane.band();
		if (view === "graph" && !pane.inverted() && pane.contentHeight() > band.height) {  // a flame graph taller than the window: its root in view
			window.scrollTo(0, graph.getBoundingClientRect().top + window.scrollY + pane.contentHeight() - band.height - headerHeight());
		}
		pane.draw();
		minimap.render();
		api.ready = true;
		api.firstDraw = performance.now();
		window.requestAnimationFrame(function () { api.firstPaint = performance.now(); });
	}
}

// the pane for pages built outside this folder (docs/viewing.md), and this page when it holds a viewer's payload
Pane.WORKER_FRAMES = WORKER_FRAMES;  // from this many frames the viewer transforms in a worker
window.FlamespacePane = Pane;
var source = document.getElementById("flamespace-data");
if (source) main(JSON.parse(source.textContent));
