// flamespace page scripts: a pane's geometry in value units and rows, apart from any canvas.
// A tree (tree_kit.mjs) holds frames in depth-first order with their parent and subtree end.

export const ROW = 16;      // pixels per row
export const BOX = 15;      // a box's height (a pixel between rows)
export const XPAD = 10;     // pixels left and right of the boxes (a ruler over a pane lines up with it)
export const MIN_PX = 1;    // narrower boxes merge into a "(small)" block per row

// the top of a row of depth `depth` in a graph of maxDepth + 1 rows: the root at the bottom, or at the top (inverted)
export function rowTop(depth, maxDepth, inverted) { return inverted ? depth * ROW + 1 : (maxDepth - depth) * ROW + 1; }

// A label in `width` pixels at `charWidth` per character, as the SVG emitter's fit_label: the name whole,
// without a trailing " (file:line)" (`trailing`: that RegExp, or null), cut with "..", or empty.
export function fitLabel(name, width, charWidth, trailing) {
	var chars = Math.floor((width - 6) / charWidth);
	if (chars < 3) return "";
	if (chars >= name.length) return name;
	if (trailing !== null) {
		name = name.replace(trailing, "");
		if (chars >= name.length) return name;
	}
	return name.substring(0, chars - 2) + "..";
}

// a view [lo, hi] kept inside [0, total] and at least a 1e-12th of it wide: [lo, hi]
export function clampView(lo, hi, total) {
	var width = hi - lo, least = total * 1e-12;
	if (width < least) { var middle = (lo + hi) / 2; lo = middle - least / 2; hi = middle + least / 2; width = least; }
	if (width >= total) { lo = 0; hi = total; }
	else if (lo < 0) { hi -= lo; lo = 0; }
	else if (hi > total) { lo -= hi - total; hi = total; }
	return [lo, hi];
}
// the view [x0, x1] zoomed by `factor` (< 1: in) around the point `at` (0..1 across it)
export function zoomedView(x0, x1, factor, at) {
	var focus = x0 + (x1 - x0) * at;
	return [focus - (focus - x0) * factor, focus + (x1 - focus) * factor];
}
// the view onto a "(small)" block [start, end]: its span, or a quarter of the view [x0, x1] around `at` (a
// value) if the block is wider
export function blockView(start, end, x0, x1, at) {
	var limit = (x1 - x0) / 4;
	if (end - start <= limit) return [start, end];
	var lo = Math.max(start, Math.min(end - limit, at - limit / 2));
	return [lo, lo + limit];
}

// the deepest frame whose span holds [lo, hi]: the zoomed frame of a wheel zoom
export function coveringFrame(tree, lo, hi) {
	var startOf = tree.start, valueOf = tree.value, endOf = tree.end;
	var tolerance = (hi - lo) * 1e-9, found = 0, i = 0;
	for (;;) {
		var next = -1;
		for (var c = found + 1; c < endOf[found]; c = endOf[c]) {
			if (startOf[c] <= lo + tolerance && startOf[c] + valueOf[c] >= hi - tolerance) { next = c; break; }
		}
		if (next < 0) return found;
		found = next;
		if (++i > tree.maxDepth + 1) return found;
	}
}
// a frame index, or for a path of names from the root's children down the deepest frame found on it
export function frameOf(tree, names, target) {
	if (typeof target === "number") return target;
	var found = 0, endOf = tree.end, nameOf = tree.name;
	for (var k = 0; k < target.length && tree.count; k++) {
		var next = -1;
		for (var c = found + 1; c < endOf[found]; c = endOf[c]) if (names[nameOf[c]] === target[k]) { next = c; break; }
		if (next < 0) break;
		found = next;
	}
	return found;
}
// the names from the root's child down to frame i
export function pathOf(tree, names, i) {
	var path = [];
	for (var a = i; a > 0; a = tree.parent[a]) path.unshift(names[tree.name[a]]);
	return path;
}
