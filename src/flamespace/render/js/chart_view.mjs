// flamespace flame chart page (render/chart_html.py): the chart (chart.mjs) under a header with the
// search; main() runs when the page holds a <script id="flamespace-chart-data"> payload.
import { Chart } from "./chart.mjs";
import { el } from "./dom.mjs";
import { Search, boxesMatched } from "./search.mjs";

function main(data) {
	var api = {ready: false};
	window.flamespaceChart = api;
	var header = document.body.appendChild(el("header"));
	header.appendChild(el("h1", {id: "title"}, data.title));
	header.appendChild(el("div", {id: "subtitle"}, data.subtitle || ""));
	var toolbar = header.appendChild(el("div", {"class": "toolbar"}));
	var resetButton = toolbar.appendChild(el("button", {id: "reset", title: "Show the whole time axis (Esc)"}, "Reset zoom"));
	var span = toolbar.appendChild(el("span", {id: "span"}));
	toolbar.appendChild(el("span", {id: "hint"}, "Click a box to zoom \u00b7 drag to pan \u00b7 drag on the ruler to zoom to a stretch \u00b7 Ctrl+wheel zooms, Shift+wheel pans \u00b7 + \u2212 \u2190 \u2192 \u00b7 Esc resets"));
	toolbar.appendChild(el("span", {"class": "grow"}));
	var rulerBox = header.appendChild(el("div", {"class": "ruler-box"}));
	var main = document.body.appendChild(el("div", {id: "chart"}));
	function headerHeight() { return header.getBoundingClientRect().height; }
	function showSpan(lo, hi) { span.textContent = human(lo) + " \u2013 " + human(hi) + " of " + human(data.end); }
	var chart = Chart(main, data, {top: headerHeight, ruler: rulerBox, onView: showSpan});
	var human = chart.human;
	showSpan(0, data.end);
	if (!data.boxes.count) main.appendChild(el("p", {"class": "empty"}, "No samples: the chart is empty."));
	var boxes = 0;
	var searchUi = Search(toolbar, {run: function (pattern) { boxes = chart.search(pattern); }, matched: function () { return boxesMatched(boxes); }});
	resetButton.addEventListener("click", chart.reset);
	window.addEventListener("resize", chart.draw);
	api.chart = chart;
	api.search = function (term) { searchUi.set(term); };
	api.ready = true;
	api.firstDraw = performance.now();
	window.requestAnimationFrame(function () { api.firstPaint = performance.now(); });
}

var source = document.getElementById("flamespace-chart-data");
if (source) main(JSON.parse(source.textContent));
