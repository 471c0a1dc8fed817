// Trees for the page scripts' unit tests, written the way a reader would draw them.
import { index } from "../../src/flamespace/render/js/tree_kit.mjs";

// A tree from [depth, name, value, self] rows in depth-first order (the root first, at depth 0), laid
// out as the payload's frames are: each frame's children after its own value, left to right.
// Returns {tree, names} with names a string table in order of first use.
export function treeOf(rows) {
	const names = [], nameIndex = new Map(), n = rows.length;
	const tree = {count: n, name: new Uint32Array(n), depth: new Uint32Array(n), start: new Float64Array(n),
		value: new Float64Array(n), self: new Float64Array(n), colour: new Uint32Array(n), delta: null, second: null};
	const next = [];  // per depth: where the next child starts
	rows.forEach(([depth, name, value, self], i) => {
		if (!nameIndex.has(name)) { nameIndex.set(name, names.length); names.push(name); }
		tree.name[i] = nameIndex.get(name);
		tree.depth[i] = depth;
		tree.start[i] = depth ? next[depth] : 0;
		tree.value[i] = value;
		tree.self[i] = self;
		next[depth] = tree.start[i] + value;
		next[depth + 1] = tree.start[i] + self;
	});
	return {tree: index(tree), names};
}

// The tree most tests draw on: root 100: main 60 (self 5) -> parse 30 (self 10) -> lex 20;
// main -> eval 25 -> parse 15 (a second parse); other 40 (self 40).
export function sample() {
	return treeOf([
		[0, "root", 100, 0],
		[1, "main", 60, 5],
		[2, "eval", 25, 10],
		[3, "parse", 15, 15],
		[2, "parse", 30, 10],
		[3, "lex", 20, 20],
		[1, "other", 40, 40],
	]);
}
