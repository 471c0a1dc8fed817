// flamespace serve's web UI (entry module): a service and labels, a range with its timeline, and the
// range's flame graph (the viewer's page), a comparison of two ranges (compare --html's page) or the
// history of its stacks (history --svg's sparklines). The state lives in the URL's query string; every
// request goes through api(), which adds the read token when there is one.
import { el } from "./dom.mjs";
import { formatter } from "./units.mjs";
import { PRESETS, SERVICE_LABEL, MAX_BARS, parseState, searchOf, rangeOf, rangeProblem, rangeEndingAt, comparedSpans, selectorOf, buckets, isoOf,
	apiTime, changesOf, stackText, stackPattern, tokenOf, mostMovedAlike } from "./serve_state.mjs";

var config = JSON.parse(document.getElementById("flamespace-ui").textContent);
var state = parseState(window.location.search);
var token = "";
var loaded = 0;  // a generation: answers of an older one are dropped
var brushing = "a";  // what a brush on the timeline sets in the comparison view: range a or b

// -- requests

// the one way the UI asks the server: GET path?params with the read token (typed, or from #token=)
function api(path, params) {
	var query = new URLSearchParams();
	Object.keys(params || {}).forEach(function (key) { if (params[key] !== "" && params[key] !== undefined) query.set(key, params[key]); });
	var headers = token ? {"Authorization": "Bearer " + token} : {};
	return fetch(config.api + path + (query.toString() ? "?" + query.toString() : ""), {headers: headers, credentials: "same-origin"})
		.then(function (answer) {
			if (answer.ok) return answer;
			return answer.text().then(function (text) {
				var message = text;
				try { message = JSON.parse(text).error || text; } catch (e) { /* not JSON: the text itself */ }
				if (answer.status === 401 || answer.status === 403) askToken();
				throw new Error(answer.status + ": " + message);
			});
		});
}
function json(path, params) { return api(path, params).then(function (a) { return a.json(); }); }
function text(path, params) { return api(path, params).then(function (a) { return a.text(); }); }

function askToken() { byId("token-box").hidden = false; }

// -- the page

function byId(id) { return document.getElementById(id); }

function build() {
	var header = document.body.appendChild(el("header"));
	var title = header.appendChild(el("div", {"class": "title-row"}));
	title.appendChild(el("h1", {}, "flamespace"));
	title.appendChild(el("span", {id: "status", "class": "muted"}));
	var bar = header.appendChild(el("div", {"class": "toolbar"}));
	bar.appendChild(el("label", {"for": "service"}, "Service"));
	bar.appendChild(el("select", {id: "service"}));
	bar.appendChild(el("span", {id: "labels"}));
	var add = bar.appendChild(el("span", {"class": "add-label"}));
	add.appendChild(el("select", {id: "label-name", title: "add a label to the selection"}));
	add.appendChild(el("select", {id: "label-value", hidden: ""}));
	bar.appendChild(el("span", {"class": "grow"}));
	var presets = bar.appendChild(el("span", {"class": "segmented", id: "presets"}));
	Object.keys(PRESETS).concat(["custom"]).forEach(function (name) {
		presets.appendChild(el("button", {"data-range": name, type: "button"}, name === "custom" ? "Custom" : name.replace("m", " min").replace("h", " h").replace("1d", "1 day")));
	});
	var custom = bar.appendChild(el("span", {id: "custom", hidden: ""}));
	custom.appendChild(el("input", {id: "from", size: "19", placeholder: "from: 2026-11-01T10:00 or now-2h", "aria-label": "from"}));
	custom.appendChild(el("input", {id: "until", size: "19", placeholder: "until", "aria-label": "until"}));
	custom.appendChild(el("button", {id: "apply", type: "button"}, "Apply"));
	var box = header.appendChild(el("div", {id: "token-box", "class": "toolbar", hidden: ""}));
	box.appendChild(el("span", {"class": "problem"}, "This server asks for a read token:"));
	box.appendChild(el("input", {id: "token", type: "password", size: "34", "aria-label": "read token"}));
	box.appendChild(el("button", {id: "token-use", type: "button"}, "Use"));
	var timeline = header.appendChild(el("div", {id: "timeline"}));
	timeline.appendChild(el("div", {id: "timeline-note", "class": "muted"}));
	var nav = header.appendChild(el("div", {"class": "toolbar"}));
	var views = nav.appendChild(el("nav", {"class": "views toolbar"}));
	[["flame", "Flame graph"], ["compare", "Compare A \u2192 B"], ["history", "History"]].forEach(function (v) {
		views.appendChild(el("a", {href: "#", "data-view": v[0]}, v[1]));
	});
	var compareBar = nav.appendChild(el("span", {id: "compare-bar", "class": "segmented"}));
	compareBar.appendChild(el("button", {"data-brush": "a", type: "button", title: "brushing the timeline sets range A"}, "Brush sets A"));
	compareBar.appendChild(el("button", {"data-brush": "b", type: "button", title: "brushing the timeline sets range B"}, "Brush sets B"));
	nav.appendChild(el("button", {id: "per-load", type: "button", title: "divide each window by its load (the weighted median of its stacks' ratios to their usual): more traffic in one range is not a change of every stack"}, "Over each window's load"));
	var historyBar = nav.appendChild(el("span", {id: "history-bar"}));
	historyBar.appendChild(el("input", {id: "stack", size: "40", placeholder: "stacks matching (a regular expression)", "aria-label": "stack"}));
	nav.appendChild(el("span", {"class": "grow"}));
	nav.appendChild(el("span", {id: "ranges", "class": "muted"}));
	document.body.appendChild(el("div", {id: "problem", "class": "problem"}));
	var main = document.body.appendChild(el("main"));
	main.appendChild(el("div", {id: "summary"}));
	main.appendChild(el("div", {id: "history"}));
	main.appendChild(el("iframe", {id: "page", title: "flame graph"}));
	wire();
}

function wire() {
	byId("service").addEventListener("change", function () { state.service = this.value; state.labels = []; go(); });
	byId("label-name").addEventListener("change", pickLabelName);
	byId("label-value").addEventListener("change", function () {
		state.labels.push([byId("label-name").value, this.value]);
		go();
	});
	byId("presets").addEventListener("click", function (event) {
		var name = event.target.getAttribute("data-range");
		if (!name) return;
		if (name === "custom") { showCustom(true); return; }
		state.range = name; state.from = ""; state.until = ""; state.a = state.b = null;
		go();
	});
	byId("apply").addEventListener("click", function () {
		state.range = "custom"; state.from = byId("from").value.trim(); state.until = byId("until").value.trim() || "now";
		state.a = state.b = null;
		go();
	});
	document.querySelector("nav.views").addEventListener("click", function (event) {
		var view = event.target.getAttribute("data-view");
		if (!view) return;
		event.preventDefault();
		state.view = view;
		go();
	});
	byId("compare-bar").addEventListener("click", function (event) {
		var which = event.target.getAttribute("data-brush");
		if (which) { brushing = which; showBrushing(); }
	});
	byId("per-load").addEventListener("click", function () { state.load = !state.load; go(); });
	byId("stack").addEventListener("change", function () { state.stack = this.value.trim(); go(); });
	byId("token-use").addEventListener("click", function () {
		token = byId("token").value.trim();
		try { window.sessionStorage.setItem("flamespace-token", token); } catch (e) { /* storage off: kept for this page */ }
		byId("token-box").hidden = true;
		load();
	});
	window.addEventListener("popstate", function () { state = parseState(window.location.search); load(); });
	window.addEventListener("mouseup", endDrag);
	window.addEventListener("resize", function () { if (timelineData) drawTimeline(timelineData); });
}

function showCustom(shown) {
	byId("custom").hidden = !shown;
	if (shown) { byId("from").value = state.from || isoOf(Date.now() - PRESETS["1h"]); byId("until").value = state.until || "now"; }
}

function showBrushing() {
	document.querySelectorAll("#compare-bar button").forEach(function (b) { b.classList.toggle("on", b.getAttribute("data-brush") === brushing); });
}

// a new state: into the URL (a history entry, so Back goes back), then drawn
function go() {
	var url = window.location.pathname + searchOf(state) + window.location.hash;
	if (url !== window.location.pathname + window.location.search + window.location.hash) window.history.pushState(null, "", url);
	load();
}

function problem(message) { byId("problem").textContent = message || ""; }
function status(message) { byId("status").textContent = message || ""; }

function option(select, value, label, chosen) {
	var o = select.appendChild(el("option", {value: value}, label));
	if (chosen) o.selected = true;
}

// -- what the controls show

function fillServices(values) {
	var select = byId("service");
	select.textContent = "";
	option(select, "", values.length ? "every service" : "no service yet", !state.service);
	values.forEach(function (v) { option(select, v, v, v === state.service); });
	if (state.service && values.indexOf(state.service) < 0) option(select, state.service, state.service + " (no window)", true);
}

function fillLabels(names) {
	var chips = byId("labels");
	chips.textContent = "";
	state.labels.forEach(function (pair, i) {
		var chip = chips.appendChild(el("span", {"class": "chip"}, pair[0] + "=" + pair[1]));
		var remove = chip.appendChild(el("button", {type: "button", title: "remove this label", "class": "remove"}, "\u00d7"));
		remove.addEventListener("click", function () { state.labels.splice(i, 1); go(); });
	});
	var select = byId("label-name");
	select.textContent = "";
	option(select, "", "+ label", true);
	var taken = state.labels.map(function (p) { return p[0]; });
	names.forEach(function (name) {
		if (name !== SERVICE_LABEL && taken.indexOf(name) < 0) option(select, name, name, false);
	});
	byId("label-value").hidden = true;
}

function pickLabelName() {
	var name = this.value, select = byId("label-value");
	if (!name) { select.hidden = true; return; }
	json("/labels/" + encodeURIComponent(name) + "/values", {selector: selector()}).then(function (answer) {
		select.textContent = "";
		option(select, "", name + " =", true);
		answer.values.forEach(function (v) { option(select, v, v, false); });
		select.hidden = false;
		select.focus();
	}).catch(function (error) { problem(error.message); });
}

function selector() { return selectorOf(state.service, state.labels); }

function showControls() {
	document.querySelectorAll("#presets button").forEach(function (b) { b.classList.toggle("on", b.getAttribute("data-range") === state.range); });
	showCustom(state.range === "custom");
	document.querySelectorAll("nav.views a").forEach(function (a) { a.classList.toggle("on", a.getAttribute("data-view") === state.view); });
	byId("compare-bar").hidden = state.view !== "compare";
	byId("per-load").hidden = state.view === "flame";
	byId("per-load").classList.toggle("on", state.load);
	byId("history-bar").hidden = state.view !== "history";
	byId("stack").value = state.stack;
	showBrushing();
}

// -- the timeline: total samples per window, summed into bars; a brush selects a range

var timelineData = null;
var drag = null;  // the timeline's geometry and where a brush started (null: none under way)
function dragX(event) { var r = drag.svg.getBoundingClientRect(); return Math.max(0, Math.min(drag.width, event.clientX - r.left)); }
// a brush ends (anywhere in the window): its range selected, unless it was a click (the bar's handler selects)
function endDrag(event) {
	if (!drag || drag.start === null) return;
	var x = dragX(event), lo = Math.min(drag.start, x), hi = Math.max(drag.start, x);
	drag.start = null;
	drag.brush.setAttribute("visibility", "hidden");
	if (hi - lo >= 3) select([drag.range[0] + (lo - 1) / drag.scale, drag.range[0] + (hi - 1) / drag.scale]);
}
var SVG = "http://www.w3.org/2000/svg";
function svgEl(tag, attributes) {
	var node = document.createElementNS(SVG, tag);
	for (var key in attributes) node.setAttribute(key, attributes[key]);
	return node;
}

function drawTimeline(data) {
	timelineData = data;
	var box = byId("timeline"), old = box.querySelector("svg");
	if (old) box.removeChild(old);
	var width = Math.max(200, box.clientWidth), height = 64, axis = 14, top = 4;
	var bars = buckets(data.windows, data.range[0], data.range[1], Math.min(MAX_BARS, Math.floor(width / 3)));
	var most = Math.max.apply(null, bars.map(function (b) { return b.total; }).concat([0]));
	var scale = (width - 2) / (data.range[1] - data.range[0] || 1);
	function x(ms) { return 1 + (ms - data.range[0]) * scale; }
	var svg = svgEl("svg", {width: width, height: height, "class": "timeline"});
	svg.appendChild(svgEl("rect", {x: 0, y: 0, width: width, height: height - axis, "class": "ground"}));
	var human = formatter(unitSpec(data.unit)).human;
	bars.forEach(function (b) {
		if (!b.total) return;
		var h = Math.max(1, (height - axis - top) * b.total / (most || 1));
		var rect = svg.appendChild(svgEl("rect", {x: x(b.start), y: height - axis - h, width: Math.max(1, x(b.end) - x(b.start) - 1), height: h, "class": "bar"}));
		var tip = svgEl("title", {});
		tip.textContent = isoOf(b.start) + " \u2026 " + isoOf(b.end) + ": " + human(b.total) + " in " + b.windows + " window" + (b.windows === 1 ? "" : "s");
		rect.appendChild(tip);
		rect.addEventListener("click", function () { select([b.start, b.end]); });
	});
	if (state.view === "compare") {
		var spans = comparedSpans(state, data.range, data.now);
		[["a", spans.a], ["b", spans.b]].forEach(function (s) {
			svg.appendChild(svgEl("rect", {x: x(s[1][0]), y: 0, width: Math.max(2, x(s[1][1]) - x(s[1][0])), height: height - axis, "class": "span span-" + s[0]}));
			var name = svg.appendChild(svgEl("text", {x: x(s[1][0]) + 3, y: 12, "class": "span-name"}));
			name.textContent = s[0].toUpperCase();
		});
	}
	[0, 0.25, 0.5, 0.75, 1].forEach(function (f) {
		var at = data.range[0] + f * (data.range[1] - data.range[0]);
		var label = svg.appendChild(svgEl("text", {x: Math.min(width - 60, Math.max(0, x(at) - 30)), y: height - 2, "class": "tick"}));
		label.textContent = isoOf(at).replace("T", " ").slice(5, 16);
	});
	var brush = svg.appendChild(svgEl("rect", {x: 0, y: 0, width: 0, height: height - axis, "class": "brush", visibility: "hidden"}));
	drag = {svg: svg, brush: brush, width: width, scale: scale, range: data.range, start: null};
	svg.addEventListener("mousedown", function (event) { drag.start = dragX(event); event.preventDefault(); });
	svg.addEventListener("mousemove", function (event) {
		if (drag.start === null) return;
		var x = dragX(event);
		brush.setAttribute("x", Math.min(drag.start, x)); brush.setAttribute("width", Math.abs(x - drag.start));
		brush.setAttribute("visibility", "visible");
	});
	box.appendChild(svg);
	byId("timeline-note").textContent = data.count + " window" + (data.count === 1 ? "" : "s") + " from " + isoOf(data.range[0]).replace("T", " ") +
		" until " + isoOf(data.range[1]).replace("T", " ") + " UTC" + (data.count > data.windows.length ? " (the latest " + data.windows.length + " drawn)" : "") +
		(data.count ? ", " + human(data.windows.reduce(function (s, w) { return s + w.total; }, 0)) + " in all" : "");
}

// no timeline (the range is not one): none of another range's left standing
function clearTimeline() {
	var old = byId("timeline").querySelector("svg");
	if (old) old.parentNode.removeChild(old);
	timelineData = null;
	byId("timeline-note").textContent = "";
}

// a range brushed or clicked: the compared range being brushed, else the range itself
function select(span) {
	var written = [isoOf(span[0]), isoOf(span[1])];
	if (state.view === "compare") state[brushing] = written;
	else { state.range = "custom"; state.from = written[0]; state.until = written[1]; }
	go();
}

function unitSpec(unit) { return config.units[unit] || {kind: "count", name: unit || "samples", significant: 3, max_decimals: 2}; }

// -- loading a state

function load() {
	var generation = ++loaded, now = Date.now(), range = rangeOf(state, now);
	showControls();
	problem("");
	// the pickers do not depend on the range: filled even when the range is not one
	json("/labels/" + SERVICE_LABEL + "/values", {}).then(function (a) { if (generation === loaded) fillServices(a.values); }).catch(showError(generation));
	json("/labels", {selector: selector()}).then(function (a) { if (generation === loaded) fillLabels(a.labels); }).catch(showError(generation));
	if (!range) { clearTimeline(); show("none"); problem("The range cannot be read: " + rangeProblem(state, now) + "."); return; }
	var where = {selector: selector(), from: apiTime(range[0]), until: apiTime(range[1])};
	status("loading\u2026");
	json("/windows", where).then(function (answer) {
		if (generation !== loaded) return;
		var unit = answer.windows.length ? answer.windows[0].unit : "";
		drawTimeline({windows: answer.windows, count: answer.count, range: range, now: now, unit: unit});
		if (!answer.count) { empty(generation, range); status(""); return; }
		var shown = state.view === "compare" ? loadCompare(where, range, now, unit) : state.view === "history" ? loadHistory(where) : loadFlame(where);
		shown.then(function () { if (generation === loaded) status(""); }).catch(showError(generation));
	}).catch(showError(generation));
}

function showError(generation) {
	// what was shown before is hidden: it is not what the controls now say
	return function (error) { if (generation === loaded) { status(""); show("none"); problem(error.message); } };
}

// no window in the range: say so, and where the selection's latest window is (one click shows the range up to it)
function empty(generation, range) {
	show("none");
	var summary = byId("summary"), whose = selector() ? " for " + selector() : "";
	summary.textContent = "No window in this range" + whose + ".";
	json("/windows", {selector: selector(), limit: "1"}).then(function (answer) {
		if (generation !== loaded) return;
		if (!answer.count) { summary.appendChild(document.createTextNode(" None stored at all: pick another service or label.")); return; }
		var latest = answer.windows[answer.windows.length - 1], shown = rangeEndingAt(latest, range[1] - range[0]);
		summary.appendChild(document.createTextNode(" The latest of its " + answer.count + " window" + (answer.count === 1 ? "" : "s") +
			" starts at " + latest.time.slice(0, 19).replace("T", " ") + " UTC. "));
		var jump = summary.appendChild(el("button", {type: "button", id: "to-latest"}, "Show the range up to it"));
		jump.addEventListener("click", function () {
			state.range = "custom"; state.from = shown[0]; state.until = shown[1]; state.a = null; state.b = null;
			go();
		});
	}).catch(showError(generation));
}

// which part of main shows: the page (an iframe), the history (sparklines) or neither
function show(what) {
	byId("page").hidden = what !== "page";
	byId("history").hidden = what !== "history";
	byId("summary").textContent = "";
	byId("summary").hidden = false;
}

// a page of ours (the viewer, the comparison) in the frame: its text as srcdoc, so it comes through api()
function framed(page, title) {
	var frame = byId("page");
	frame.setAttribute("title", title);
	frame.srcdoc = page;
}

function loadFlame(where) {
	var generation = loaded;
	return text("/merge", Object.assign({format: "html"}, where)).then(function (page) {
		if (generation !== loaded) return;
		show("page");
		byId("ranges").textContent = "";
		framed(page, "flame graph of the range");
	});
}

function loadCompare(where, range, now, unit) {
	var generation = loaded, spans = comparedSpans(state, range, now);
	var params = {baseline_selector: where.selector, baseline_from: apiTime(spans.a[0]), baseline_until: apiTime(spans.a[1]),
		candidate_selector: where.selector, candidate_from: apiTime(spans.b[0]), candidate_until: apiTime(spans.b[1]),
		normalize_load: state.load ? "true" : ""};
	byId("ranges").textContent = "A: " + isoOf(spans.a[0]).replace("T", " ") + " \u2026 " + isoOf(spans.a[1]).slice(11) +
		"   B: " + isoOf(spans.b[0]).replace("T", " ") + " \u2026 " + isoOf(spans.b[1]).slice(11);
	// one comparison, two views: the test's rows for the table, compare --html's page to frame
	return json("/compare", Object.assign({format: "json-with-html"}, params)).then(function (both) {
		if (generation !== loaded) return;
		show("page");
		summarise(both.comparison, unit);
		framed(both.html, "comparison of range A with range B");
	});
}

// the comparison in words: which stacks got slower and faster, each with its interval
function summarise(doc, unit) {
	var box = byId("summary"), human = formatter(unitSpec(doc.unit || unit)).human, found = changesOf(doc);
	box.textContent = "";
	var head = box.appendChild(el("p", {"class": "verdict"}));
	head.appendChild(el("strong", {}, found.slower.length + " stack" + (found.slower.length === 1 ? "" : "s") + " slower, " +
		found.faster.length + " faster"));
	head.appendChild(document.createTextNode(" in B (" + doc.runs.candidate + " windows) than in A (" + doc.runs.baseline + " windows): " +
		doc.method + ", \u03b1 = " + doc.alpha + " (" + doc.control + "); intervals at " + Math.round(doc.interval.level * 1000) / 10 + "%."));
	(doc.notes || []).forEach(function (n) {  // what the load did: divided (and the loads' range), or why not
		if (/^(each run divided|not divided) by (its )?load/.test(n)) box.appendChild(el("p", {"class": "muted load-note"}, n));
	});
	if (!state.load && mostMovedAlike(doc)) {
		box.appendChild(el("p", {"class": "muted load-note"}, "Most stacks changed alike: the windows of one range may carry more " +
			"traffic than the other's. \u201cOver each window's load\u201d divides it out (a change that makes every stack slower alike then reads as load)."));
	}
	[["slower", found.slower], ["faster", found.faster]].forEach(function (part) {
		if (!part[1].length) return;
		var table = box.appendChild(el("table", {"class": "numbers changes " + part[0]}));
		var row = table.appendChild(el("tr"));
		["Got " + part[0], "A", "B", "\u0394 a window", "interval", "change"].forEach(function (h) { row.appendChild(el("th", {}, h)); });
		part[1].slice(0, 20).forEach(function (c) {
			var tr = table.appendChild(el("tr"));
			var name = tr.appendChild(el("td", {"class": "stack", title: c.stack.join(";")}));
			var link = name.appendChild(el("a", {href: "#", title: "the history of this stack"}, stackText(c.stack.slice(-3))));
			link.addEventListener("click", function (event) { event.preventDefault(); state.view = "history"; state.stack = stackPattern(c.stack); go(); });
			tr.appendChild(el("td", {}, human(c.baseline)));
			tr.appendChild(el("td", {}, human(c.candidate)));
			tr.appendChild(el("td", {}, human(c.delta, true) + (c.relative === null ? "" : " (" + (c.relative > 0 ? "+" : "") + (100 * c.relative).toFixed(1) + "%)")));
			tr.appendChild(el("td", {}, c.lower === null || c.upper === null ? "n/a" : "[" + human(c.lower, true) + ", " + human(c.upper, true) + "]"));
			tr.appendChild(el("td", {}, c.kind));
		});
	});
	(doc.findings || []).forEach(function (f) { box.appendChild(el("p", {"class": "muted"}, f.level + ": " + f.message)); });
}

function loadHistory(where) {
	var generation = loaded;
	var metric = state.load ? "normalised" : "";  // over each window's load, as the alerts watch
	return text("/history", Object.assign({format: "svg", by: "window", top: "10", stack: state.stack, metric: metric}, where)).then(function (svg) {
		if (generation !== loaded) return;
		show("history");
		byId("ranges").textContent = "";
		var parsed = new DOMParser().parseFromString(svg, "image/svg+xml").documentElement;
		var box = byId("history");
		box.textContent = "";
		box.appendChild(document.importNode(parsed, true));
		box.appendChild(el("p", {"class": "muted"}, "Each row a stack (the largest first): its value a window" + (state.load ? " over the window's load (as the alerts watch it; the title says when the windows hold too few stacks to tell the load)" : "") + ", the dashed lines its levels, a dot each change point (red: up, blue: down; hover for the change and its p-value)."));
	});
}

// -- start

(function start() {
	var found = tokenOf(window.location.hash);
	if (found.token) {
		token = found.token;
		window.history.replaceState(null, "", window.location.pathname + window.location.search + found.hash);
	} else {
		try { token = window.sessionStorage.getItem("flamespace-token") || ""; } catch (e) { token = ""; }
	}
	build();
	load();
	window.flamespaceUI = {state: function () { return state; }, api: api};
})();
