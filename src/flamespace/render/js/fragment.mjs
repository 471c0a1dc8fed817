// flamespace page scripts: a page's view in its URL's fragment (#z=12&s=parse&ic), kept on reload and in links.

// "#a=1&b" -> {a: "1", b: ""}: each part's value URI-decoded (a malformed escape is kept as written)
export function parseFragment(hash) {
	var state = {};
	hash.replace(/^#/, "").split("&").forEach(function (part) {
		var at = part.indexOf("=");
		if (part && at !== 0) state[at < 0 ? part : part.slice(0, at)] = at < 0 ? "" : decoded(part.slice(at + 1));
	});
	return state;
}
function decoded(text) {
	try { return decodeURIComponent(text); } catch (e) { return text; }
}
// the fragment of some parts ("z=3", "s=" + encodeURIComponent(term)): "#z=3&s=..." or "" for none
export function fragmentOf(parts) { return parts.length ? "#" + parts.join("&") : ""; }
// whether `hash` differs from the location's fragment `current` ("" and "#" both say none)
export function fragmentChanged(hash, current) { return hash !== current && !(hash === "" && current === "#"); }
// the page's fragment set to `hash` when it changes, without a new entry in the history; a page with no
// URL of its own (an iframe's srcdoc: a notebook's output, about:srcdoc) keeps its view in no URL
export function replaceFragment(hash) {
	if (window.location.protocol === "about:") return;
	if (fragmentChanged(hash, window.location.hash)) history.replaceState(null, "", window.location.pathname + window.location.search + hash);
}

// The single-profile viewer's state as fragment parts. s: zoom (a frame), x0, x1, total (the view), zoomStart
// and zoomEnd (the zoomed frame's span: "z=" when the view is exactly it), term, ignoreCase, shape ("icicle",
// "flame" or "" for the payload's own), leftHeavy, invert, recursion, merge, hide, only (-1: all), focus and
// sandwich ({text, group} or null).
export function viewerParts(s) {
	var parts = [];
	if (s.zoom && s.x0 === s.zoomStart && s.x1 === s.zoomEnd) parts.push("z=" + s.zoom);
	else if (s.x0 !== 0 || s.x1 !== s.total) parts.push("x=" + s.x0 + "," + s.x1);
	if (s.term) parts.push("s=" + encodeURIComponent(s.term));
	if (s.ignoreCase) parts.push("ic");
	if (s.shape) parts.push(s.shape);
	if (s.leftHeavy) parts.push("lh");
	if (s.invert) parts.push("inv");
	if (s.recursion) parts.push("rec");
	if (s.merge) parts.push("merge=" + encodeURIComponent(s.merge));
	if (s.hide) parts.push("hide=" + encodeURIComponent(s.hide));
	if (s.only >= 0) parts.push("only=" + s.only);
	if (s.focus) parts.push((s.focus.group === "function" ? "focusf=" : "focus=") + encodeURIComponent(s.focus.text));
	if (s.sandwich) parts.push((s.sandwich.group === "function" ? "swf=" : "sw=") + encodeURIComponent(s.sandwich.text));
	return parts;
}
// an "x=FROM,TO" part as [from, to], or null when it is not two finite numbers in order
export function spanOf(text) {
	var span = (text || "").split(",").map(Number);
	return span.length === 2 && isFinite(span[0]) && isFinite(span[1]) && span[1] > span[0] ? span : null;
}
