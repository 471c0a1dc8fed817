// flamespace page scripts: the tree of frames and its transforms, as typed-array columns.
// -- transforms: new trees from a tree, in the page or in a worker ---------------------------------
// A tree's frames are merged by path into a trie (Builder), then laid out again as columns
// (children in name order, or widest first: left heavy). Each frame brings its exclusive value
// (its value less its children's: its self plus any narrow frames the layout left out), its
// exclusive change for differential input and its exclusive second metric on a page coloured by
// one, so a transformed tree's total, changes and ratios are exact for what it keeps (a merged
// frame's ratio is its summed second metric over its summed value). Everything is in typed arrays:
// a million-frame profile makes no string and no object per frame.
// treeKit() names nothing outside itself: the page calls it, and its source text is the transform
// worker's (TransformRunner), so the worker runs the very code the main thread would.
export function treeKit() {
	"use strict";
	// A tree of frames: columns (name, depth, start, value, self, colour, delta and second or null) in
	// depth-first order, parents first; index() adds each frame's parent and the end of its subtree.
	// `actual`: the root's value without a larger --total (the root's ratio is over it).
	function index(tree) {
		var n = tree.count, depthOf = tree.depth, parentOf = new Int32Array(n), endOf = new Uint32Array(n);
		var open = new Int32Array(n + 1), top = 0, maxDepth = 0;
		for (var i = 0; i < n; i++) {
			var d = depthOf[i];
			if (d > maxDepth) maxDepth = d;
			while (top && depthOf[open[top - 1]] >= d) endOf[open[--top]] = i;
			parentOf[i] = top ? open[top - 1] : -1;
			open[top++] = i;
		}
		while (top) endOf[open[--top]] = n;
		tree.parent = parentOf;
		tree.end = endOf;
		if (tree.maxDepth === undefined) tree.maxDepth = maxDepth;
		if (tree.total === undefined) tree.total = n ? tree.value[0] : 0;
		if (tree.actual === undefined) tree.actual = tree.total;
		return tree;
	}
	function exclusiveOf(t, column) {
		var ex = Float64Array.from(column);
		for (var i = 1; i < t.count; i++) ex[t.parent[i]] -= column[i];
		return ex;
	}
	function grown(array, size) { var bigger = new array.constructor(size); bigger.set(array); return bigger; }
	function Builder(rootName, withDelta, withSecond) {
		this.size = 1;
		this.name = new Int32Array(1024); this.parent = new Int32Array(1024); this.self = new Float64Array(1024);
		this.narrow = new Float64Array(1024);  // the value of callers too narrow to draw (inverted trees)
		this.delta = withDelta ? new Float64Array(1024) : null;  // exclusive changes, as self
		this.second = withSecond ? new Float64Array(1024) : null;  // the exclusive second metric, as self
		this.name[0] = rootName; this.parent[0] = -1;
		this.slots = null;  // open addressing: (parent, name) -> node (a Map of such keys is slow); made on first use
	}
	function slotOf(slots, parent, name, names, parents) {
		var mask = slots.length - 1, h = (Math.imul(parent + 1, 0x9E3779B1) ^ Math.imul(name + 1, 0x85EBCA77)) >>> 0;
		h = (h ^ (h >>> 15)) & mask;
		for (;;) {
			var id = slots[h];
			if (id < 0 || (parents[id] === parent && names[id] === name)) return h;
			h = (h + 1) & mask;
		}
	}
	// a new node, no questions asked (grow makes each (parent, name) once)
	Builder.prototype.add = function (p, name) {
		var id = this.size;
		if (id === this.name.length) {
			var size = 2 * id;
			this.name = grown(this.name, size); this.parent = grown(this.parent, size); this.self = grown(this.self, size);
			this.narrow = grown(this.narrow, size);
			if (this.delta) this.delta = grown(this.delta, size);
			if (this.second) this.second = grown(this.second, size);
		}
		this.name[id] = name; this.parent[id] = p; this.size = id + 1;
		return id;
	};
	// the node of `name` under node p, made if new
	Builder.prototype.child = function (p, name) {
		var k;
		if (this.slots === null || 2 * this.size > this.slots.length) {  // keep it at most half full
			var length = 1024;  // a power of two (the mask)
			while (length < 4 * this.size) length *= 2;
			var slots = new Int32Array(length).fill(-1);
			for (k = 1; k < this.size; k++) slots[slotOf(slots, this.parent[k], this.name[k], this.name, this.parent)] = k;
			this.slots = slots;
		}
		var h = slotOf(this.slots, p, name, this.name, this.parent), id = this.slots[h];
		if (id < 0) this.slots[h] = id = this.add(p, name);
		return id;
	};
	// node m takes frame i's exclusive parts (value ex, change dex, second metric sex; the last two may be null)
	Builder.prototype.take = function (m, i, ex, dex, sex) {
		this.self[m] += ex[i];
		if (dex) this.delta[m] += dex[i];
		if (sex) this.second[m] += sex[i];
	};
	// each name's place in name order (the layout's sibling order), computed once per string table
	var rankCache = {names: null, length: -1, rank: null};
	function nameRank(names) {
		if (rankCache.names !== names || rankCache.length !== names.length) {
			var order = new Int32Array(names.length), rank = new Int32Array(names.length);
			for (var k = 0; k < order.length; k++) order[k] = k;
			order.sort(function (a, b) { var x = names[a], y = names[b]; return x < y ? -1 : x > y ? 1 : a - b; });
			for (k = 0; k < order.length; k++) rank[order[k]] = k;
			rankCache = {names: names, length: names.length, rank: rank};
		}
		return rankCache.rank;
	}
	// the trie as a tree (columns in depth-first order); byValue: siblings widest first; ownDelta: each
	// frame's change of its own value (the payload's delta "self"), else of its inclusive value
	Builder.prototype.tree = function (names, byValue, ownDelta) {
		var N = this.size, parent = this.parent, nameOf = this.name, self = this.self, k;
		var value = new Float64Array(N), delta = null, second = null, rank = nameRank(names);
		for (k = 0; k < N; k++) value[k] = self[k] + this.narrow[k];  // callers too narrow to draw still count
		for (k = N - 1; k > 0; k--) value[parent[k]] += value[k];  // a child is made after its parent
		if (this.delta) {
			delta = this.delta.slice(0, N);
			if (!ownDelta) for (k = N - 1; k > 0; k--) delta[parent[k]] += delta[k];
		}
		if (this.second) {  // with its callees, as the payload's
			second = this.second.slice(0, N);
			for (k = N - 1; k > 0; k--) second[parent[k]] += second[k];
		}
		// children in name order: the nodes by name rank (a counting sort), then bucketed by parent (stable)
		var byRank = new Int32Array(names.length + 1), sorted = new Int32Array(Math.max(N - 1, 0));
		for (k = 1; k < N; k++) byRank[rank[nameOf[k]] + 1] += 1;
		for (k = 0; k < names.length; k++) byRank[k + 1] += byRank[k];
		for (k = 1; k < N; k++) sorted[byRank[rank[nameOf[k]]]++] = k;
		var first = new Int32Array(N + 1);
		for (k = 1; k < N; k++) first[parent[k] + 1] += 1;
		for (k = 0; k < N; k++) first[k + 1] += first[k];
		var fill = first.slice(0, N), kids = new Int32Array(Math.max(N - 1, 0));
		for (var s = 0; s < N - 1; s++) { var c = sorted[s]; kids[fill[parent[c]]++] = c; }
		if (byValue) {
			var widest = function (a, b) { return value[b] - value[a] || rank[nameOf[a]] - rank[nameOf[b]]; };
			for (k = 0; k < N; k++) if (first[k + 1] - first[k] > 1) kids.subarray(first[k], first[k + 1]).sort(widest);
		}
		var oName = new Uint32Array(N), oDepth = new Uint32Array(N), oStart = new Float64Array(N), oValue = new Float64Array(N);
		var oSelf = new Float64Array(N), oDelta = delta ? new Float64Array(N) : null, oSecond = second ? new Float64Array(N) : null;
		var depth = new Int32Array(N), start = new Float64Array(N), stack = new Int32Array(N), top = 0, n = 0;
		stack[top++] = 0;
		while (top) {
			var id = stack[--top];
			if (!(value[id] > 0) && id) continue;
			oName[n] = nameOf[id]; oDepth[n] = depth[id]; oStart[n] = start[id]; oValue[n] = value[id]; oSelf[n] = self[id];
			if (oDelta) oDelta[n] = delta[id];
			if (oSecond) oSecond[n] = second[id];
			n++;
			// its own value first, as the layout puts it (a stack that ends here sorts before those that go on)
			var x = start[id] + self[id];
			for (k = first[id]; k < first[id + 1]; k++) { c = kids[k]; start[c] = x; depth[c] = depth[id] + 1; x += value[c]; }
			for (k = first[id + 1] - 1; k >= first[id]; k--) stack[top++] = kids[k];
		}
		return index({count: n, name: oName.slice(0, n), depth: oDepth.slice(0, n), start: oStart.slice(0, n),
			value: oValue.slice(0, n), self: oSelf.slice(0, n), colour: new Uint32Array(n), delta: oDelta ? oDelta.slice(0, n) : null,
			second: oSecond ? oSecond.slice(0, n) : null});
	};
	// Paths read upwards (callers of a frame, then theirs...) merged into the trie I under `node`: members
	// at frames at[m] (> 0) weigh weight[m] (and change by change[m], bring second[m] of the second metric:
	// either may be null). Level by level: the members of one group (a run of `order`) are split by the
	// name they are at, each name's run moves one caller up and becomes a group under its node; a run
	// narrower than minValue stops there (its value stays in its parent's width), so a big profile's
	// inverted tree stays small. Typed arrays only, no hashing.
	function grow(I, node, at, weight, change, second, parentOf, nameOf, nameCount, minValue) {
		var count = at.length, order = new Int32Array(count), link = new Int32Array(count), seen = new Int32Array(count);
		var stamp = new Int32Array(nameCount).fill(-1), head = new Int32Array(nameCount), sum = new Float64Array(nameCount);
		var stack = new Int32Array(3 * 64), top = 0, job = 0, m, k;
		for (m = 0; m < count; m++) order[m] = m;
		if (count) { stack[0] = node; stack[1] = 0; stack[2] = count; top = 3; }
		while (top) {
			var hi = stack[--top], lo = stack[--top], parent = stack[--top], kinds = 0;
			job += 1;
			for (k = lo; k < hi; k++) {
				m = order[k];
				var name = nameOf[at[m]];
				if (stamp[name] !== job) { stamp[name] = job; head[name] = -1; sum[name] = 0; seen[kinds++] = name; }
				link[m] = head[name]; head[name] = m; sum[name] += weight[m];
			}
			var w = lo;  // the runs that go on are written back over this group's run
			for (var g = 0; g < kinds; g++) {
				var nm = seen[g];
				if (sum[nm] < minValue) {
					I.narrow[parent] += sum[nm];
					if (change || second) for (m = head[nm]; m >= 0; m = link[m]) {
						if (change) I.delta[parent] += change[m];
						if (second) I.second[parent] += second[m];
					}
					continue;
				}
				var child = I.add(parent, nm), from = w;
				for (m = head[nm]; m >= 0; m = link[m]) {
					var up = parentOf[at[m]];
					if (up > 0) { at[m] = up; order[w++] = m; } else {
						I.self[child] += weight[m];
						if (change) I.delta[child] += change[m];
						if (second) I.second[child] += second[m];
					}
				}
				if (w > from) {
					if (top + 3 > stack.length) stack = grown(stack, 2 * stack.length);
					stack[top++] = child; stack[top++] = from; stack[top++] = w;
				}
			}
		}
	}
	// Colours of a transformed tree: for differential input (change: the payload's change scale) by each
	// frame's change, as palettes.py's diff_colour on the payload's ramp; else by name, each name the
	// colour of its first frame in `t` (a merged box is not the colour of whichever frame came first).
	// (A page coloured by a second metric colours boxes from the tree's `second` column instead.)
	function paint(out, t, change) {
		var k, colour = out.colour;
		if (out.delta && change) {
			var L = change.largest, S = (change.ramp.length - 1) / 2, fixed = change.fixed || {};
			for (k = 0; k < out.count; k++) {
				var f = fixed[out.name[k]];
				if (f !== undefined && k) { colour[k] = f; continue; }
				var d = Math.max(-L, Math.min(out.delta[k], L));
				colour[k] = change.ramp[d > 0 ? 2 * S - Math.trunc(S * (L - d) / L) : d < 0 ? Math.trunc(S * (L + d) / L) : S];
			}
			return out;
		}
		var most = 0;
		for (k = 0; k < t.count; k++) if (t.name[k] > most) most = t.name[k];
		for (k = 0; k < out.count; k++) if (out.name[k] > most) most = out.name[k];
		var byName = new Int32Array(most + 1).fill(-1);
		for (k = t.count - 1; k >= 0; k--) byName[t.name[k]] = t.colour[k];
		var fallback = t.count ? t.colour[0] : 0;
		for (k = 0; k < out.count; k++) colour[k] = byName[out.name[k]] >= 0 ? byName[out.name[k]] : fallback;
		return out;
	}
	// spec: only (a frame: keep its subtree and its ancestors), drop / merge (Uint8Array over names: frames
	// left out with their callees / left out, their callees moved to their caller), focus (Uint8Array over
	// names: the root becomes spec.root, every outermost frame of those names merged into it), recursion
	// (a frame called by a frame of its own name merges into it), invert (leaves become roots), byValue,
	// minValue (an inverted tree's narrowest frame), change (the payload's change scale: differential
	// colours), ownDelta (the tree's deltas are each frame's own change: the payload's delta "self").
	function transform(t, names, spec) {
		var n = t.count, nameOf = t.name, parentOf = t.parent, endOf = t.end, deltaOf = t.delta;
		var ex = exclusiveOf(t, t.value), dex = deltaOf ? (spec.ownDelta ? deltaOf : exclusiveOf(t, deltaOf)) : null;
		var sex = t.second ? exclusiveOf(t, t.second) : null;
		var OUT = -2, DROP = -1, only = spec.only >= 0 ? spec.only : -1;
		var B = new Builder(spec.focus ? spec.root : nameOf[0], !!deltaOf, !!sex);
		// only merging frames (merge, recursion, focus) can meet a path twice: else no hashing
		var mapped = new Int32Array(n), merging = !!(spec.merge || spec.recursion || spec.focus);
		mapped[0] = spec.focus ? OUT : 0;
		// the root's own value (with a larger --total's padding) stays when the root does
		var rootKept = mapped[0] === 0 && !(only > 0);
		if (rootKept) B.take(0, 0, ex, dex, sex);
		for (var i = 1; i < n;) {
			if (only > 0 && !(i <= only ? i === only || endOf[i] > only : i < endOf[only])) { i = endOf[i]; continue; }
			var name = nameOf[i], pm = mapped[parentOf[i]], m;
			if (pm === DROP || (spec.drop && spec.drop[name])) { i = endOf[i]; continue; }
			if (pm === OUT) m = spec.focus[name] ? 0 : OUT;
			else if (spec.merge && spec.merge[name] && pm >= 0) m = pm;
			else if (spec.recursion && pm > 0 && B.name[pm] === name) m = pm;
			else m = merging ? B.child(pm, name) : B.add(pm, name);
			mapped[i] = m;
			if (m >= 0 && (only <= 0 || i >= only)) B.take(m, i, ex, dex, sex);
			i++;
		}
		if (spec.invert) {
			var I = new Builder(B.name[0], !!dex, !!sex), kept = 0, k;
			var member = function (k) { return B.self[k] > 0 || (dex && B.delta[k]) || (sex && B.second[k]); };
			for (k = 1; k < B.size; k++) if (member(k)) kept++;
			var at = new Int32Array(kept), weight = new Float64Array(kept);
			var change = dex ? new Float64Array(kept) : null, second = sex ? new Float64Array(kept) : null;
			for (kept = 0, k = 1; k < B.size; k++) if (member(k)) {
				at[kept] = k; weight[kept] = B.self[k];
				if (change) change[kept] = B.delta[k];
				if (second) second[kept] = B.second[k];
				kept++;
			}
			I.take(0, 0, B.self, B.delta, B.second);
			grow(I, 0, at, weight, change, second, B.parent, B.name, names.length, spec.minValue || 0);
			B = I;
		}
		var out = paint(B.tree(names, !!spec.byValue, !!spec.ownDelta), t, spec.change);
		out.actual = out.total - (rootKept ? t.total - t.actual : 0);
		return out;
	}
	// the callers of the frames whose names `match` (outermost ones): a tree rooted at `root`, each path
	// of callers above it innermost first, as wide as the calls it made (and with their second metric)
	function callers(t, names, match, root, rootColour, minValue) {
		var B = new Builder(root, false, !!t.second), nameOf = t.name, parentOf = t.parent, endOf = t.end;
		var at = [], weight = [], second = [], colour = -1;
		for (var i = 1; i < t.count;) {
			if (!match[nameOf[i]]) { i++; continue; }
			if (colour < 0) colour = t.colour[i];  // the function's own colour
			if (parentOf[i] > 0) {
				at.push(parentOf[i]); weight.push(t.value[i]);
				if (t.second) second.push(t.second[i]);
			} else B.take(0, i, t.value, null, t.second);
			i = endOf[i];
		}
		grow(B, 0, Int32Array.from(at), Float64Array.from(weight), null, t.second ? Float64Array.from(second) : null,
			parentOf, nameOf, names.length, minValue || 0);
		var out = paint(B.tree(names, false, false), t, null);
		if (out.count) out.colour[0] = colour >= 0 ? colour : rootColour;
		return out;
	}
	// per name, or per group (groupOf: an Int32Array from name to group, null: each name its own; names
	// past its end are their own): self and inclusive (outermost frames only) of a tree, rows in the order
	// the tree first meets them
	function functionCosts(t, groupOf) {
		var n = t.count, nameOf = t.name, endOf = t.end, most = 0, count = 0, i, g;
		function group(k) { return groupOf !== null && k < groupOf.length ? groupOf[k] : k; }
		for (i = 1; i < n; i++) if ((g = group(nameOf[i])) > most) most = g;
		var rowOf = new Int32Array(most + 1).fill(-1), active = new Int32Array(most + 1);
		var rowName = new Int32Array(most + 1), self = new Float64Array(most + 1), inclusive = new Float64Array(most + 1);
		var openFrame = new Int32Array(t.maxDepth + 2), openGroup = new Int32Array(t.maxDepth + 2), top = 0;
		for (i = 1; i < n; i++) {  // the root is no function
			while (top && endOf[openFrame[top - 1]] <= i) active[openGroup[--top]] -= 1;
			g = group(nameOf[i]);
			var row = rowOf[g];
			if (row < 0) { row = rowOf[g] = count++; rowName[row] = g; }
			self[row] += t.self[i];
			if (!active[g]) inclusive[row] += t.value[i];
			active[g] += 1;
			openFrame[top] = i; openGroup[top++] = g;
		}
		return {count: count, name: rowName.slice(0, count), self: self.slice(0, count), inclusive: inclusive.slice(0, count)};
	}
	return {index: index, transform: transform, callers: callers, functionCosts: functionCosts};
}
// the page's own kit (TransformRunner's worker makes its own from treeKit's source text)
export const kit = treeKit();
export const index = kit.index;
