// flamespace trace report (render/report.py): the flame graph as front page, each box a link to its
// function's section (calls, times, callers, callees, lines), a table of every function and the flame
// chart. Built from three payloads over the pane (pane.mjs) and the chart (chart.mjs); the views
// are addressed by the URL's fragment: #graph, #functions, #fn-N (the N-th function), #chart.
import { Chart } from "./chart.mjs";
import { el } from "./dom.mjs";
import { Pane } from "./pane.mjs";
import { column } from "./payload.mjs";
import { Search, escapeRegex, paneMatched } from "./search.mjs";
import { formatter } from "./units.mjs";

function payload(id) { var node = document.getElementById(id); return node ? JSON.parse(node.textContent) : null; }
var R = payload("flamespace-report"), G = payload("flamespace-graph-data"), C = payload("flamespace-chart-data");
if (!R || R.version !== 1 || R.kind !== "report") throw new Error("flamespace report: unknown payload");
var api = {ready: false};
window.flamespaceReport = api;
var format = formatter(G.units), human = format.human, percent = format.percent, total = R.total;
function count(n) { return format.count(n); }

// -- the report's tables --------------------------------------------------------------------------
function columns(table, keys) {
	var out = {count: table ? table.count : 0};
	keys.forEach(function (key) { out[key] = table ? column(table[key]) : []; });
	return out;
}
var FIELDS = ["calls", "primitive", "inclusive", "exclusive", "mean", "longest"];
var F = columns(R.functions, ["name"].concat(FIELDS)), E = columns(R.edges, ["caller", "callee", "calls", "inclusive"]);
var L = columns(R.lines, ["function", "line", "hits", "exclusive"]);
var names = R.names, byName = new Map();
for (var k = 0; k < F.count; k++) byName.set(names[F.name[k]], k);
var callersOf = [], calleesOf = [], linesOf = [];
for (k = 0; k < F.count; k++) { callersOf.push([]); calleesOf.push([]); linesOf.push([]); }
for (k = 0; k < E.count; k++) {
	callersOf[E.callee[k]].push(k);
	if (E.caller[k] >= 0) calleesOf[E.caller[k]].push(k);
}
for (k = 0; k < L.count; k++) linesOf[L.function[k]].push(k);
function nameOf(f) { return names[F.name[f]]; }
function link(f) { return f < 0 ? el("span", {"class": "muted"}, "(the start of a thread)") : el("a", {href: "#fn-" + f}, nameOf(f)); }

// -- the header: title, what was traced, the views ------------------------------------------------------
var header = document.body.appendChild(el("header"));
header.appendChild(el("h1", {id: "title"}, R.title));
var labels = R.labels || {}, facts = [];
if (labels.calls) facts.push(Number(labels.calls).toLocaleString("en") + " calls");
if (Number(labels.duration_s) > 0) facts.push(human(Number(labels.duration_s) * 1e9) + " traced");  // written to the ms
if (labels.events) facts.push(Number(labels.events).toLocaleString("en") + " events");
if (labels.python) facts.push("Python " + labels.python);
header.appendChild(el("div", {id: "subtitle"}, [R.subtitle].concat(facts).filter(Boolean).join(" \u00b7 ")));
var nav = header.appendChild(el("nav", {"class": "toolbar views"}));
var tabs = {};
[["graph", "Flame graph", "Exclusive time per full stack; click a box for its function"],
	["functions", "Functions", "Every function: calls, inclusive and exclusive time"],
	["chart", "Flame chart", "Each thread in time order"]].forEach(function (v) {
	if (v[0] === "chart" && !C) return;
	tabs[v[0]] = nav.appendChild(el("a", {href: "#" + v[0], id: "tab-" + v[0], title: v[2]}, v[1]));
});
var graphTools = header.appendChild(el("div", {"class": "toolbar", id: "graph-tools"}));
var resetButton = graphTools.appendChild(el("button", {id: "reset", title: "Show the whole graph (Esc)"}, "Reset zoom"));
graphTools.appendChild(el("span", {id: "hint"}, "Click a box: its function \u00b7 Shift+click or Ctrl+wheel: zoom \u00b7 Esc resets"));
graphTools.appendChild(el("span", {"class": "grow"}));
var searchUi = Search(graphTools, {keys: false, run: function (pattern) { pane.search(pattern); }, matched: function () { return paneMatched(pane); }});
(R.problems || []).forEach(function (p) { header.appendChild(el("div", {"class": "problem"}, p)); });
function headerHeight() { return header.getBoundingClientRect().height; }

var views = {}, current = null;
["graph", "functions", "function", "chart"].forEach(function (v) { views[v] = document.body.appendChild(el("section", {id: "view-" + v, "class": "view"})); });

// -- the flame graph: a box is a link to its function ----------------------------------------------------
var pane = Pane(views.graph, G, {id: "canvas", top: headerHeight, draw: false,
	tooltipRows: function (i, row) { if (i > 0) row("", "Click: the function's section \u00b7 Shift+click: zoom"); }});
pane.on("click", function (e) {
	if (e.frame <= 0 || e.event.shiftKey) return true;
	var f = byName.get(G.names[pane.tree().name[e.frame]]);
	if (f === undefined) return true;
	window.location.hash = "fn-" + f;
	return false;
});
resetButton.addEventListener("click", function () { pane.reset(); });

// -- the functions: a sortable table ---------------------------------------------------------------------
var COLUMNS = [["name", "Function"], ["calls", "Calls"], ["primitive", "Primitive"], ["inclusive", "Inclusive"],
	["exclusive", "Exclusive"], ["mean", "Mean"], ["longest", "Longest"]];
var sortKey = "inclusive", ascending = false;
views.functions.appendChild(el("h2", {}, "Functions"));
var table = views.functions.appendChild(el("table", {id: "functions-table", "class": "numbers"}));
var headRow = table.appendChild(el("thead")).appendChild(el("tr"));
var tbody = table.appendChild(el("tbody"));
COLUMNS.forEach(function (c) {
	var th = headRow.appendChild(el("th", {"data-key": c[0]}, c[1]));
	th.addEventListener("click", function () {
		if (sortKey === c[0]) ascending = !ascending; else { sortKey = c[0]; ascending = c[0] === "name"; }
		fillTable();
	});
});
function cell(key, f) {
	if (key === "calls" || key === "primitive") return count(F[key][f]);
	return human(F[key][f]);
}
function fillTable() {
	var order = [];
	for (var f = 0; f < F.count; f++) order.push(f);
	order.sort(function (a, b) {
		var x = sortKey === "name" ? nameOf(a) : F[sortKey][a], y = sortKey === "name" ? nameOf(b) : F[sortKey][b];
		var c = x < y ? -1 : x > y ? 1 : a - b;
		return ascending ? c : -c;
	});
	tbody.textContent = "";
	order.forEach(function (f) {
		var tr = tbody.appendChild(el("tr"));
		tr.appendChild(el("td")).appendChild(link(f));
		COLUMNS.slice(1).forEach(function (c) { tr.appendChild(el("td", {}, cell(c[0], f))); });
	});
	Array.prototype.forEach.call(headRow.children, function (th) {
		th.className = th.getAttribute("data-key") === sortKey ? "sorted" + (ascending ? " asc" : "") : "";
	});
}
fillTable();

// -- one function: its numbers, callers, callees, lines ------------------------------------------------
function showFunction(f) {
	var box = views.function;
	box.textContent = "";
	box.setAttribute("data-function", String(f));
	box.appendChild(el("h2", {id: "function-name"}, nameOf(f)));
	var actions = box.appendChild(el("div", {"class": "toolbar"}));
	var inGraph = actions.appendChild(el("button", {id: "show-in-graph", title: "The flame graph with this function's boxes highlighted"}, "Highlight in the flame graph"));
	inGraph.addEventListener("click", function () {
		window.location.hash = "graph";
		searchUi.set("^" + escapeRegex(nameOf(f)) + "$", false);
	});
	if (C) {
		var inChart = actions.appendChild(el("button", {id: "show-in-chart", title: "The flame chart with this function's boxes highlighted"}, "Highlight in the flame chart"));
		inChart.addEventListener("click", function () { pendingChartSearch = "^" + escapeRegex(nameOf(f)) + "$"; window.location.hash = "chart"; });
	}
	var stats = box.appendChild(el("table", {"class": "stats"}));
	function stat(label, value) { var tr = stats.appendChild(el("tr")); tr.appendChild(el("th", {}, label)); tr.appendChild(el("td", {}, value)); }
	stat("Calls", count(F.calls[f]) + (F.primitive[f] !== F.calls[f] ? " (" + count(F.primitive[f]) + " primitive: not from inside itself)" : ""));
	stat("Inclusive", human(F.inclusive[f]) + " (" + percent(F.inclusive[f], total) + " of the run)");
	stat("Exclusive", human(F.exclusive[f]) + " (" + percent(F.exclusive[f], total) + " of the run)");
	stat("Mean per call", human(F.mean[f]));
	stat("Longest call", human(F.longest[f]));
	function edgeTable(title, id, list, other) {
		box.appendChild(el("h3", {}, title + " (" + list.length + ")"));
		if (!list.length) { box.appendChild(el("p", {"class": "muted"}, "None.")); return; }
		var t = box.appendChild(el("table", {id: id, "class": "numbers"}));
		var h = t.appendChild(el("thead")).appendChild(el("tr"));
		["Function", "Calls", "Inclusive", "Of " + (title === "Callers" ? "its" : "this function's") + " inclusive"].forEach(function (label) { h.appendChild(el("th", {}, label)); });
		var b = t.appendChild(el("tbody"));
		list.forEach(function (e) {
			var tr = b.appendChild(el("tr"));
			tr.appendChild(el("td")).appendChild(link(other(e)));
			tr.appendChild(el("td", {}, count(E.calls[e])));
			if (E.caller[e] === E.callee[e]) {  // recursion: its time is in the outermost call's
				tr.appendChild(el("td", {"class": "muted", title: "A recursive call's time is counted in its outermost call"}, "recursive"));
				tr.appendChild(el("td", {}, ""));
				return;
			}
			tr.appendChild(el("td", {}, human(E.inclusive[e])));
			tr.appendChild(el("td", {}, percent(E.inclusive[e], F.inclusive[f])));
		});
	}
	edgeTable("Callers", "callers", callersOf[f], function (e) { return E.caller[e]; });
	edgeTable("Callees", "callees", calleesOf[f], function (e) { return E.callee[e]; });
	if (R.lines) {
		box.appendChild(el("h3", {}, "Source lines (" + linesOf[f].length + ")"));
		if (!linesOf[f].length) box.appendChild(el("p", {"class": "muted"}, "No line of it was recorded."));
		else {
			var t = box.appendChild(el("table", {id: "lines", "class": "numbers"}));
			var h = t.appendChild(el("thead")).appendChild(el("tr"));
			["Line", "Hits", "Exclusive", "Of the function's exclusive"].forEach(function (label) { h.appendChild(el("th", {}, label)); });
			var b = t.appendChild(el("tbody"));
			linesOf[f].forEach(function (l) {
				var tr = b.appendChild(el("tr"));
				var line = names[L.line[l]], number = /:(\d+)\)$/.exec(line);  // f (app.py:12): "line 12"
				tr.appendChild(el("td", {title: line}, number ? "line " + number[1] : line));
				tr.appendChild(el("td", {}, count(L.hits[l])));
				tr.appendChild(el("td", {}, human(L.exclusive[l])));
				tr.appendChild(el("td", {}, percent(L.exclusive[l], F.exclusive[f])));
			});
		}
	} else {
		box.appendChild(el("p", {"class": "muted"}, "Time per source line was not recorded (trace with --lines)."));
	}
}

// -- the flame chart, made when first shown (its lanes measure the page) ----------------------------
var chart = null, pendingChartSearch = null;
function showChart() {
	if (!chart) {
		views.chart.appendChild(el("div", {"class": "toolbar"}, "Drag to pan \u00b7 drag on the ruler to zoom to a stretch \u00b7 Ctrl+wheel zooms \u00b7 + \u2212 \u2190 \u2192 \u00b7 Esc resets"));
		var rulerBox = views.chart.appendChild(el("div", {"class": "ruler-box sticky-ruler"}));  // stays under the header
		var covered = function () { return headerHeight() + rulerBox.getBoundingClientRect().height; };
		chart = Chart(views.chart, C, {top: covered, ruler: rulerBox, active: function () { return current === "chart"; }});
		api.chart = chart;
	} else chart.draw();
	views.chart.querySelector(".sticky-ruler").style.top = headerHeight() + "px";
	if (pendingChartSearch !== null) { chart.search(new RegExp(pendingChartSearch)); pendingChartSearch = null; }
}

// A flame graph taller than the window opens (and comes back from another view) with its root in
// view, as the viewer's does: it opened at its deepest frames, the root below the fold.
function rootInView() {
	pane.size();
	if (!pane.inverted() && pane.contentHeight() > pane.band().height) {  // the graph's bottom at the window's
		window.scrollTo(0, Math.max(0, views.graph.getBoundingClientRect().bottom + window.scrollY - window.innerHeight));
	}
}

// -- routing ----------------------------------------------------------------------------------------
function route() {
	var hash = window.location.hash.replace(/^#/, ""), view = "graph", match = /^fn-(\d+)$/.exec(hash);
	if (match && Number(match[1]) < F.count) view = "function";
	else if (hash === "functions") view = "functions";
	else if (hash === "chart" && C) view = "chart";
	var previous = current;
	current = view;
	for (var v in views) views[v].style.display = v === view ? "" : "none";
	graphTools.style.display = view === "graph" ? "" : "none";
	for (var t in tabs) tabs[t].classList.toggle("on", t === view);
	if (view === "graph" && previous !== "graph") rootInView();
	if (view === "graph") pane.draw();
	else if (view === "function") showFunction(Number(match[1]));
	else if (view === "chart") showChart();
	if (view !== "graph") window.scrollTo(0, 0);
	api.view = view;
}
window.addEventListener("hashchange", route);
window.addEventListener("resize", function () { if (current === "graph") pane.redraw(); });
document.addEventListener("keydown", function (e) {
	if (current !== "graph" || searchUi.key(e)) return;
	if (e.key === "Escape") pane.reset();
});
route();
api.pane = pane;
api.functions = function () { var out = []; for (var f = 0; f < F.count; f++) out.push(nameOf(f)); return out; };
api.ready = true;
window.requestAnimationFrame(function () { api.firstPaint = performance.now(); });
