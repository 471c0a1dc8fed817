// flamespace page scripts: the viewer's transforms run in a Web Worker on big pages, on the main thread else.
import { kit, treeKit } from "./tree_kit.mjs";
// The transform worker's code (its source text, with treeKit's, is the worker's script): it keeps the
// page's tree and string table, and answers each job with the transformed tree and its tables of
// functions, their arrays transferred, not copied.
export function transformWorker(kit, scope) {
	var base = null, names = null;
	scope.onmessage = function (event) {
		var job = event.data;
		if (job.type === "base") { base = job.tree; names = job.names; return; }
		try {
			for (var k = 0; k < job.names.length; k++) names.push(job.names[k]);  // names the page added since
			var began = performance.now(), tree = kit.transform(base, names, job.spec), tables = {}, buffers = [];
			job.groups.forEach(function (g) { tables[g.key] = kit.functionCosts(tree, g.map); });
			[tree].concat(Object.keys(tables).map(function (key) { return tables[key]; })).forEach(function (columns) {
				for (var key in columns) {
					var v = columns[key];
					if (ArrayBuffer.isView(v) && buffers.indexOf(v.buffer) < 0) buffers.push(v.buffer);
				}
			});
			scope.postMessage({id: job.id, tree: tree, tables: tables, ms: performance.now() - began}, buffers);
		} catch (error) {
			scope.postMessage({id: job.id, error: String(error && error.stack || error)});
		}
	};
}

// TransformRunner(base, names): runs transforms of the page's tree `base` (run(spec, groups, done):
// done(tree, tables, where) with the tables of functions for each of `groups`, [{key, map}] as
// functionCosts' groupOf). In a worker made from a Blob URL of this script's own transform code (the page
// stays one file that asks for nothing) when the tree has at least WORKER_FRAMES frames: the page stays
// responsive meanwhile. The worker gets the tree once (a copy: the page keeps its own) and each job the
// names added since; a job started while another runs ends that worker (a transform cannot be
// interrupted), so the newest one wins. Where workers are unavailable or fail, on the main thread.
export const WORKER_FRAMES = 20000;
var workerSource = null;
export function TransformRunner(base, names) {
	var mode = "auto", worker = null, sent = 0, pending = null, jobs = 0;
	var usable = typeof Worker !== "undefined" && typeof Blob !== "undefined" && typeof URL !== "undefined" && !!URL.createObjectURL;
	function onMainThread(spec, groups) {
		var tree = kit.transform(base, names, spec), tables = {};
		groups.forEach(function (g) { tables[g.key] = kit.functionCosts(tree, g.map); });
		return {tree: tree, tables: tables};
	}
	function stop() {
		if (worker) { worker.terminate(); worker = null; }
	}
	function fallBack() {  // the worker failed: this job and the next ones on the main thread
		usable = false;
		stop();
		var job = pending;
		pending = null;
		if (job) { var out = onMainThread(job.spec, job.groups); job.done(out.tree, out.tables, "main"); }
	}
	function start() {
		if (workerSource === null) {
			workerSource = URL.createObjectURL(new Blob(['"use strict";(' + transformWorker.toString() + ")((" + treeKit.toString() + ")(), self);\n"],
				{type: "text/javascript"}));
		}
		worker = new Worker(workerSource);
		worker.onmessage = function (event) {
			var answer = event.data, job = pending;
			if (!job || answer.id !== job.id) return;  // a job since cancelled
			if (answer.error) { fallBack(); return; }
			pending = null;
			job.done(answer.tree, answer.tables, "worker");
		};
		worker.onerror = function (event) { event.preventDefault(); fallBack(); };
		worker.onmessageerror = fallBack;
		var columns = {};
		["count", "name", "depth", "start", "value", "self", "colour", "delta", "second", "parent", "end", "total", "maxDepth", "actual"]
			.forEach(function (key) { columns[key] = base[key]; });
		worker.postMessage({type: "base", tree: columns, names: names});
		sent = names.length;
	}
	function cancel() {
		if (pending) { pending = null; stop(); }
	}
	function run(spec, groups, done) {
		cancel();
		var id = ++jobs;
		if (!usable || mode === "main" || (mode === "auto" && base.count < WORKER_FRAMES)) {
			var out = onMainThread(spec, groups);
			done(out.tree, out.tables, "main");
			return;
		}
		try {
			if (!worker) start();
			pending = {id: id, spec: spec, groups: groups, done: done};
			worker.postMessage({type: "job", id: id, spec: spec, groups: groups, names: names.slice(sent)});
			sent = names.length;
		} catch (error) {
			pending = {id: id, spec: spec, groups: groups, done: done};
			fallBack();
		}
	}
	return {
		run: run, cancel: cancel,
		busy: function () { return pending !== null; },
		// "auto" (a worker from WORKER_FRAMES frames), "worker" or "main": where the next transforms run
		setMode: function (m) { mode = m; },
	};
}
