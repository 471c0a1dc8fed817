// flamespace page scripts: numbers for people, as flamespace.core.units.human (the unit's scales come
// in the payload: formatter(payload.units)).
export function formatter(U) {
	function groupThousands(digits) { return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ","); }
	function plain(value, signed) {
		if (isNaN(value)) return "n/a";
		if (!isFinite(value)) return value > 0 ? (signed ? "+\u221e" : "\u221e") : "-\u221e";
		if (value === 0) return "0";
		var sign = value < 0 ? "-" : signed ? "+" : "", magnitude = Math.abs(value), sig = U.significant;
		var exponent = Math.floor(Math.log10(magnitude));
		if (Number(magnitude.toFixed(Math.max(0, Math.min(100, sig - 1 - exponent)))) >= Math.pow(10, exponent + 1)) exponent += 1;
		var decimals = Math.max(0, sig - 1 - exponent);
		if (decimals > U.max_decimals) {
			var parts = magnitude.toExponential(sig - 1).split("e");
			var power = parseInt(parts[1], 10);
			return sign + parts[0] + "e" + (power < 0 ? "-" : "+") + (Math.abs(power) < 10 ? "0" : "") + Math.abs(power);
		}
		var text = magnitude.toFixed(decimals), dot = text.indexOf(".");
		return sign + (dot < 0 ? groupThousands(text) : groupThousands(text.slice(0, dot)) + text.slice(dot));
	}
	function scaleFor(magnitude, difference) {
		if (U.kind === "share") return [100, difference ? "pp" : "%"];
		if (U.kind !== "scaled") return [1, ""];
		var scales = U.scales, base = isFinite(magnitude) ? Math.abs(magnitude) * U.size : 0, index = 0;
		for (var i = 0; i < scales.length; i++) if (base >= scales[i][1]) index = i;
		var suffix = scales[index][0], step = scales[index][1];
		if (index + 1 < scales.length && base && Math.abs(parseFloat(plain(base / step).replace(/,/g, ""))) >= scales[index + 1][1] / step) {
			suffix = scales[index + 1][0]; step = scales[index + 1][1];
		}
		return [U.size / step, suffix];
	}
	// plain counts as the SVG's tooltips write them (flamespace.core.units.format_count)
	function count(value, signed) {
		var magnitude = Math.abs(value), sign = value < 0 ? "-" : signed && value > 0 ? "+" : "", text;
		if (Number.isInteger(magnitude) || magnitude >= 100) text = groupThousands(magnitude.toFixed(0));
		else text = general(magnitude);
		return sign + text;
	}
	function human(value, signed) {
		if (U.kind === "count") return count(value, signed) + (U.name ? " " + U.name : "");
		var scale = scaleFor(value, signed), text = plain(value * scale[0], signed);
		if (scale[1] && isFinite(value)) text = scale[1] === "%" ? text + "%" : text + " " + scale[1];
		return text;
	}
	return {human: human, count: count, percent: percent};
}
// a positive number to 3 significant digits as Python's "{:.3g}": trailing zeros dropped, an exponent
// (two digits at least) below 1e-4
function general(magnitude) {
	var parts = magnitude.toExponential(2).split("e"), exponent = parseInt(parts[1], 10);
	function trimmed(text) { return text.indexOf(".") < 0 ? text : text.replace(/0+$/, "").replace(/\.$/, ""); }
	if (exponent < -4 || exponent >= 3) {
		return trimmed(parts[0]) + "e" + (exponent < 0 ? "-" : "+") + (Math.abs(exponent) < 10 ? "0" : "") + Math.abs(exponent);
	}
	return trimmed(magnitude.toFixed(2 - exponent));
}
export function percent(part, whole) { return whole ? (100 * part / whole).toFixed(2) + "%" : "n/a"; }
