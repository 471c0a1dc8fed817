// flamespace flame graph page script: details on hover, click to zoom, regex search.
// Settings come from `flamespaceConfig` (written before this script). Frame positions are
// read once into arrays; zoom, search and resize compute new values from those arrays and
// then write the DOM in one pass (no reads between writes: no layout thrashing).
"use strict";
var flamespace = (function () {
	var cfg = flamespaceConfig;
	var svg, details, unzoomBtn, searchBtn, icBtn, matchedTxt;
	var groups = [], rects = [], texts = [], titles = [], names = [];
	var fx = [], fw = [], depth = [], fill = [], origX = [], origY = [];
	var shownX = [], shownW = [], shownLabel = [], shownClass = [], shownFill = [];
	var vx = [], vw = [], state = [];  // view position (fraction of the view), 0 shown / 1 parent / 2 hidden
	var root = 0, zoomed = -1, term = null, ignorecase = false, pendingFrame = false;
	var EPS;

	function init() {
		var frames = document.getElementById("frames");
		svg = frames.ownerSVGElement;
		details = document.getElementById("details").firstChild;
		unzoomBtn = document.getElementById("unzoom");
		searchBtn = document.getElementById("search");
		icBtn = document.getElementById("ignorecase");
		matchedTxt = document.getElementById("matched");
		var inner = cfg.width - 2 * cfg.xpad;
		EPS = 0.21 / inner;  // rect positions are rounded to 0.1 pixel
		var children = frames.children;
		for (var i = 0; i < children.length; i++) {
			var g = children[i];
			var rect = g.querySelector("rect"), text = g.querySelector("text");
			var title = g.querySelector("title").textContent;
			var x = rect.getAttribute("x"), y = rect.getAttribute("y");
			g.flamespaceIndex = i;
			groups.push(g); rects.push(rect); texts.push(text); titles.push(title);
			names.push(title.replace(/ \([^(]*\)$/, ""));
			origX.push(x); origY.push(y);
			fx.push((parseFloat(x) - cfg.xpad) / inner);
			fw.push(parseFloat(rect.getAttribute("width")) / inner);
			var d = Math.round((cfg.inverted ? parseFloat(y) - cfg.y0 : cfg.y0 - parseFloat(y)) / cfg.frameheight);
			depth.push(d);
			if (d === 0) root = i;
			fill.push(rect.getAttribute("fill"));
			shownX.push(x); shownW.push(rect.getAttribute("width")); shownLabel.push(text.textContent);
			shownClass.push(""); shownFill.push(fill[i]);
			vx.push(0); vw.push(0); state.push(0);
		}
		if (!groups.length) return;
		view(root);
		var params = getParams();
		if (params.ic === "1") setIgnorecase(true);
		if (params.x !== undefined && params.y !== undefined) {
			for (var j = 0; j < groups.length; j++) {
				if (origX[j] === params.x && origY[j] === params.y) { zoom(j, false); break; }
			}
		}
		if (params.s) search(params.s);
		if (cfg.fluid || zoomed >= 0) draw();
		window.addEventListener("click", onClick, false);
		window.addEventListener("mouseover", function (e) {
			var i = frameOf(e.target);
			if (i >= 0) details.nodeValue = cfg.nametype + " " + titles[i];
		}, false);
		window.addEventListener("mouseout", function (e) {
			if (frameOf(e.target) >= 0) details.nodeValue = " ";
		}, false);
		window.addEventListener("keydown", onKey, false);
		window.addEventListener("resize", function () {
			if (!cfg.fluid || pendingFrame) return;
			pendingFrame = true;
			window.requestAnimationFrame(function () { pendingFrame = false; draw(); });
		}, false);
	}

	function frameOf(node) {
		while (node && node.parentNode) {
			if (node.parentNode.id === "frames") return node.flamespaceIndex;
			node = node.parentNode;
		}
		return -1;
	}

	// -- zoom ------------------------------------------------------------------------------
	// view(i): frame i spans the full width; its ancestors too (faded), others outside hidden.
	function view(i) {
		var x0 = fx[i], x1 = fx[i] + fw[i], d = depth[i], scale = 1 / fw[i];
		for (var j = 0; j < groups.length; j++) {
			var left = fx[j], right = fx[j] + fw[j];
			if (j === i) {
				state[j] = 0; vx[j] = 0; vw[j] = 1;
			} else if (depth[j] < d) {
				var ancestor = left <= x0 + EPS && right >= x1 - EPS;
				state[j] = ancestor ? 1 : 2; vx[j] = 0; vw[j] = 1;
			} else if (depth[j] > d && left >= x0 - EPS && left < x1 - EPS && right <= x1 + EPS) {
				state[j] = 0; vx[j] = (left - x0) * scale; vw[j] = fw[j] * scale;
			} else {
				state[j] = 2;
			}
		}
	}

	function zoom(i, updateUrl) {
		if (depth[i] === 0) { unzoom(); return; }
		zoomed = i;
		view(i);
		unzoomBtn.classList.remove("hide");
		if (updateUrl !== false) setParams({x: origX[i], y: origY[i]});
		if (term !== null) search(term, true);
		draw();
	}

	function unzoom() {
		zoomed = -1;
		view(root);
		unzoomBtn.classList.add("hide");
		setParams({x: null, y: null});
		if (term !== null) search(term, true);
		draw();
	}

	// -- drawing: compute everything, then write only what changed ------------------------------
	// As the emitter's fit_label: whole, without a trailing " (file:line)" (cfg.location), cut, or empty.
	var location = cfg.location ? new RegExp(cfg.location) : null;
	function label(name, width) {
		var chars = Math.floor(width / (cfg.fontsize * cfg.fontwidth));
		if (chars < 3) return "";
		if (chars >= name.length) return name;
		if (location !== null) {
			name = name.replace(location, "");
			if (chars >= name.length) return name;
		}
		if (cfg.truncate === "left") return ".." + name.substring(name.length - chars + 2);
		return name.substring(0, chars - 2) + "..";
	}

	function draw() {
		var width = cfg.fluid ? svg.getBoundingClientRect().width : cfg.width;  // the one read
		var inner = width - 2 * cfg.xpad;
		var writes = [];
		for (var i = 0; i < groups.length; i++) {
			var cls = state[i] === 2 ? "hide" : state[i] === 1 ? "parent" : "";
			if (cls !== shownClass[i]) writes.push([i, "class", cls]);
			if (state[i] === 2) continue;
			var px = cfg.xpad + vx[i] * inner, pw = vw[i] * inner;
			var x = px.toFixed(1), w = pw.toFixed(1);
			if (x !== shownX[i] || w !== shownW[i]) writes.push([i, "box", x, w, (px + 3).toFixed(2)]);
			var text = label(names[i], pw);
			if (text !== shownLabel[i]) writes.push([i, "label", text]);
		}
		for (var k = 0; k < writes.length; k++) {
			var op = writes[k], j = op[0];
			if (op[1] === "class") {
				shownClass[j] = op[2];
				if (op[2]) groups[j].setAttribute("class", op[2]); else groups[j].removeAttribute("class");
			} else if (op[1] === "box") {
				shownX[j] = op[2]; shownW[j] = op[3];
				rects[j].setAttribute("x", op[2]);
				rects[j].setAttribute("width", op[3]);
				texts[j].setAttribute("x", op[4]);
			} else {
				shownLabel[j] = op[2];
				texts[j].textContent = op[2];
			}
		}
		if (cfg.fluid) {
			var place = function (id, x) { var e = document.getElementById(id); if (e) e.setAttribute("x", x); };
			place("title", Math.floor(width / 2)); place("subtitle", Math.floor(width / 2));
			place("search", width - cfg.xpad - 100); place("ignorecase", width - cfg.xpad - 16);
			place("matched", width - cfg.xpad - 100);
			document.getElementById("background").setAttribute("width", width);
		}
	}

	// -- search ------------------------------------------------------------------------------
	function search(newTerm, keepUrl) {
		var re;
		try {
			re = new RegExp(newTerm, ignorecase ? "i" : "");
		} catch (err) {
			matchedTxt.textContent = "Invalid regex";
			return;
		}
		term = newTerm;
		var matches = [];
		for (var i = 0; i < groups.length; i++) {
			var hit = re.test(names[i]);
			var colour = hit ? cfg.searchcolor : fill[i];
			if (colour !== shownFill[i]) { shownFill[i] = colour; rects[i].setAttribute("fill", colour); }
			if (hit && state[i] !== 2) matches.push(i);
		}
		// Share of the view covered by matches, each nested match counted once: sorted by
		// position (widest first), a match inside the last counted one is skipped.
		matches.sort(function (a, b) { return vx[a] - vx[b] || vw[b] - vw[a]; });
		var covered = 0, end = -1;
		for (var k = 0; k < matches.length; k++) {
			var m = matches[k];
			if (vx[m] >= end - EPS) { covered += vw[m]; end = vx[m] + vw[m]; }
		}
		var pct = Math.min(100, 100 * covered);
		searchBtn.classList.add("show");
		searchBtn.textContent = "Reset Search";
		matchedTxt.textContent = "Matched: " + (pct > 99.995 ? "100" : pct.toFixed(1)) + "%";
		if (!keepUrl) setParams({s: term});
	}

	function resetSearch() {
		term = null;
		for (var i = 0; i < groups.length; i++) {
			if (shownFill[i] !== fill[i]) { shownFill[i] = fill[i]; rects[i].setAttribute("fill", fill[i]); }
		}
		searchBtn.classList.remove("show");
		searchBtn.textContent = "Search";
		matchedTxt.textContent = " ";
		setParams({s: null});
	}

	function searchPrompt() {
		if (term !== null) { resetSearch(); return; }
		var answer = window.prompt("Enter a search term (regexp allowed, eg: ^ext4_)" +
			(ignorecase ? ", ignoring case" : "") + "\nPress Ctrl-I to toggle case sensitivity", "");
		if (answer) search(answer);
	}

	function setIgnorecase(on) {
		ignorecase = on;
		if (on) icBtn.classList.add("show"); else icBtn.classList.remove("show");
		setParams({ic: on ? "1" : null});
		if (term !== null) search(term, true);
	}

	// -- events and the URL --------------------------------------------------------------------
	function onClick(e) {
		var i = frameOf(e.target);
		if (i >= 0) {
			if (groups[i].nodeName === "a" && !e.ctrlKey) return;  // --nameattr links open
			e.preventDefault();
			zoom(i);
		} else if (e.target.id === "unzoom") {
			unzoom();
		} else if (e.target.id === "search") {
			searchPrompt();
		} else if (e.target.id === "ignorecase") {
			setIgnorecase(!ignorecase);
		}
	}

	function onKey(e) {
		if (e.key === "F3" || e.keyCode === 114 || (e.ctrlKey && (e.key === "f" || e.keyCode === 70))) {
			e.preventDefault();
			searchPrompt();
		} else if (e.ctrlKey && (e.key === "i" || e.keyCode === 73)) {
			e.preventDefault();
			setIgnorecase(!ignorecase);
		}
	}

	function getParams() {
		var params = {};
		var parts = window.location.search.substring(1).split("&");
		for (var i = 0; i < parts.length; i++) {
			var pair = parts[i].split("=");
			if (pair[0] && pair.length > 1) params[decodeURIComponent(pair[0])] = decodeURIComponent(pair.slice(1).join("="));
		}
		return params;
	}

	function setParams(changes) {
		var params = getParams();
		for (var key in changes) {
			if (changes[key] === null) delete params[key]; else params[key] = changes[key];
		}
		var query = [];
		for (var name in params) query.push(encodeURIComponent(name) + "=" + encodeURIComponent(params[name]));
		var url = window.location.href.split(/[?#]/)[0] + (query.length ? "?" + query.join("&") : "") + window.location.hash;
		try { history.replaceState(null, "", url); } catch (err) { /* e.g. file: URLs in some browsers */ }
	}

	return {init: init, zoom: function (i) { zoom(i); }, unzoom: unzoom, search: search, resetSearch: resetSearch};
})();

function flamespaceInit(evt) { flamespace.init(); }
