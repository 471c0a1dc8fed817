// flamespace page scripts: the payload of render/html.py decoded (typed columns from base64) into a tree.
import { index } from "./tree_kit.mjs";

var TYPES = {u1: Uint8Array, u2: Uint16Array, u4: Uint32Array, i1: Int8Array, i2: Int16Array, i4: Int32Array, f8: Float64Array};
export function column(c) {
	var text = atob(c.data), n = text.length, bytes = new Uint8Array(n);
	for (var i = 0; i < n; i++) bytes[i] = text.charCodeAt(i);
	return new TYPES[c.type](bytes.buffer);
}
export function decode(data) {
	var F = data.frames;
	var tree = index({count: F.count, name: column(F.name), depth: column(F.depth), start: column(F.start),
		value: column(F.value), self: column(F.self), colour: column(F.colour), delta: F.delta ? column(F.delta) : null,
		second: F.second ? column(F.second) : null,
		total: data.total, maxDepth: data.max_depth, actual: data.ratio ? data.ratio.actual : data.total});
	tree.narrow = data.narrow ? narrowFrames(data.narrow, tree) : null;
	return tree;
}
// the frames the layout left out (only the search counts them: its matched share is exact): name, depth
// below the laid-out frame that owns them, value; those of laid-out frame i are [first[i], first[i + 1]).
// When the page holds only the widest of them (render/html.py's SEARCH_FRAMES), `missing[i]`: the value
// under laid-out frame i in frames it does not hold (what they could add to the matched share).
function narrowFrames(N, tree) {
	var counts = column(N.count), n = counts.length, first = new Uint32Array(n + 1);
	for (var i = 0; i < n; i++) first[i + 1] = first[i] + counts[i];
	var out = {first: first, name: column(N.name), depth: column(N.depth), value: column(N.value), missing: null};
	if (!N.complete) {
		var missing = new Float64Array(n), value = tree.value, parent = tree.parent;
		for (i = 0; i < n; i++) missing[i] = (i ? value[i] : N.actual) - tree.self[i];
		for (i = 1; i < n; i++) missing[parent[i]] -= value[i];
		for (i = 0; i < n; i++) {
			for (var r = first[i]; r < first[i + 1]; r++) if (out.depth[r] === 1) missing[i] -= out.value[r];
			if (missing[i] < 1e-9 * (value[i] || 1)) missing[i] = 0;
		}
		out.missing = missing;
	}
	return out;
}
