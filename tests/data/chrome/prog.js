function leaf(n) { let s = 0; for (let i = 0; i < n; i++) s += i * i; return s; }
function middle(n) { return leaf(n) + leaf(n >> 1); }
const t = Date.now();
while (Date.now() - t < 150) middle(20000);
