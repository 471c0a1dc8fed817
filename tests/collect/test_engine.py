"""The sampling engine's weighting, driven by a fake clock and hand-made frames (no timing)."""

from __future__ import annotations

import sys
import threading
import time
from types import SimpleNamespace

import pytest

import flamespace as fs
from flamespace.collect import engine as engine_module
from flamespace.collect.engine import IDLE_FRAME, Engine
from flamespace.collect.naming import FrameNamer, PathShortener
from flamespace.collect.options import SamplerOptions
from flamespace.collect.sink import Sink

from .names import qualified


class FakeClock:
    def __init__(self) -> None:
        self.now = 1_000
        self.cpu = {}

    def now_ns(self) -> int:
        return self.now

    def thread_cpu_ns(self, native_id):
        return self.cpu.get(native_id)


class FakeCode:
    def __init__(self, name):
        self.co_name = self.co_qualname = name
        self.co_filename = "/app/x.py"


def fake_frame(*names):
    """A chain of objects that look like frames, root first in ``names``."""
    frame = None
    for line, name in enumerate(names, 1):
        code = FakeCode(name)
        frame = SimpleNamespace(f_code=code, f_back=frame, f_lasti=line, f_lineno=line)
    return frame


class ByName(FrameNamer):
    def name(self, frame):
        return frame.f_code.co_name


def engine(clock, **options):
    return Engine(SamplerOptions(**options), clock=clock, namer=ByName())


MAIN = threading.main_thread()


def test_wall_weights_are_the_time_since_each_threads_previous_sample():
    clock = FakeClock()
    e = engine(clock)
    e.begin()
    clock.now += 10
    e.sample({MAIN.ident: fake_frame("main", "a")}, clock.now)
    clock.now += 30
    e.sample({MAIN.ident: fake_frame("main", "b")}, clock.now)
    assert e.sink.totals == {("main", "a"): 10, ("main", "b"): 30}
    assert e.quality.ticks == 2 and e.quality.samples == 2


def test_a_thread_first_seen_is_weighted_from_the_previous_tick():
    clock = FakeClock()
    e = engine(clock)
    e.begin()
    clock.now += 10
    e.sample({}, clock.now)
    clock.now += 5
    e.sample({12345: fake_frame("worker")}, clock.now)
    assert e.sink.totals == {("worker",): 5}


def test_cpu_mode_charges_only_cpu_time_and_skips_sleepers():
    clock = FakeClock()
    clock.cpu[MAIN.native_id] = 100
    e = engine(clock, mode="cpu")
    e.begin()  # baseline 100 for the main thread
    clock.now += 50
    clock.cpu[MAIN.native_id] = 130
    e.sample({MAIN.ident: fake_frame("spin")}, clock.now)
    clock.now += 50  # slept: no CPU used
    e.sample({MAIN.ident: fake_frame("sleep")}, clock.now)
    assert e.sink.totals == {("spin",): 30}


def test_idle_splits_wall_time_into_running_and_idle():
    clock = FakeClock()
    clock.cpu[MAIN.native_id] = 0
    e = engine(clock, idle=True)
    e.begin()
    clock.now += 100
    clock.cpu[MAIN.native_id] = 40
    e.sample({MAIN.ident: fake_frame("io")}, clock.now)
    assert e.sink.totals == {("io",): 40, ("io", IDLE_FRAME): 60}


def test_sample_weight_counts_samples_and_idle_goes_to_the_larger_part():
    clock = FakeClock()
    clock.cpu[MAIN.native_id] = 0
    e = engine(clock, idle=True, weight="samples")
    e.begin()
    clock.now += 100
    clock.cpu[MAIN.native_id] = 10
    e.sample({MAIN.ident: fake_frame("io")}, clock.now)
    assert e.sink.totals == {("io", IDLE_FRAME): 1}


def test_roots_threads_and_cut():
    clock = FakeClock()
    e = engine(clock, root=("proc (1)",), threads=True)
    launcher = fake_frame("launcher", "main")
    e.root_cut = frozenset({launcher.f_back.f_code})
    e.begin()
    clock.now += 7
    e.sample({MAIN.ident: launcher}, clock.now)
    assert e.sink.totals == {("proc (1)", "MainThread", "main"): 7}


def test_the_thread_that_stops_the_recording_is_charged_where_it_was_last_seen():
    """The last tick, taken as the recording stops, sees the stopping thread in our own frames
    (Engine.halt): its time since its previous tick goes to the stack that tick saw. Dropped, as
    it was, the phase that ended a program lost a whole gap: under load 100 ms or more."""
    clock = FakeClock()
    e = engine(clock)
    e.begin()
    clock.now += 10
    e.sample({MAIN.ident: fake_frame("main", "spin")}, clock.now)
    stopping = SimpleNamespace(f_code=Engine.halt.__code__, f_back=fake_frame("main", "exit"), f_lasti=1, f_lineno=1)
    clock.now += 200
    e.sample({MAIN.ident: stopping, 12345: fake_frame("worker")}, clock.now, stopping=MAIN.ident)
    clock.now += 10
    e.sample({MAIN.ident: stopping}, clock.now)  # an ordinary tick still drops our own frames
    assert e.sink.totals == {("main", "spin"): 210, ("worker",): 200}


def test_halt_takes_a_last_tick():
    """At 1 Hz a 0.2 s sleep sees no tick of its own in 4 of 5 recordings (e^-0.2): the last tick
    still records how long it was, and charges the stopping thread's share where it was last seen
    (nowhere here: with no tick before, it is lost, and longest_gap_ms says how much)."""
    e = Engine(SamplerOptions(rate=1, seed=1)).start()
    time.sleep(0.2)
    e.halt()
    assert e.quality.ticks >= 1 and e.elapsed_ns >= 0.2e9


class Starting(SimpleNamespace):
    __hash__ = object.__hash__  # a key of threading._limbo, as Thread objects are


def test_a_thread_seen_before_threading_lists_it_gets_its_name_and_cpu_clock_once_listed(monkeypatch):
    """Thread.start runs the new thread before it adds itself to threading._active (after
    _started.set(), which can hand the GIL over): a sampler that kept the name it saw then
    called the thread ``Thread <ident>`` for good, and, with no native id, never charged it CPU."""
    clock = FakeClock()
    e = engine(clock, mode="cpu", threads=True)
    e.begin()
    ident, native_id = 424242, 4242
    clock.cpu[native_id] = 3
    clock.now += 10
    e.sample({ident: fake_frame("bootstrap")}, clock.now)  # not even its ident set: no CPU clock
    worker = Starting(name="worker", native_id=native_id, _ident=ident)
    monkeypatch.setitem(threading._limbo, worker, worker)
    clock.cpu[native_id] = 5
    clock.now += 10
    e.sample({ident: fake_frame("start")}, clock.now)  # starting: its CPU since birth
    monkeypatch.delitem(threading._limbo, worker)
    monkeypatch.setitem(threading._active, ident, worker)
    clock.cpu[native_id] = 8
    clock.now += 10
    e.sample({ident: fake_frame("spin")}, clock.now)
    monkeypatch.delitem(threading._active, ident)  # ending: threading lets it go before its last frames
    clock.cpu[native_id] = 9
    clock.now += 10
    e.sample({ident: fake_frame("spin")}, clock.now)
    assert e.sink.totals == {("worker", "start"): 5, ("worker", "spin"): 4}


def test_a_new_thread_with_an_ended_ones_ident_is_a_new_thread(monkeypatch):
    clock = FakeClock()
    e = engine(clock, mode="cpu", threads=True)
    ident = 434343
    monkeypatch.setitem(threading._active, ident, SimpleNamespace(name="first", native_id=1))
    e.begin()
    clock.cpu[1] = 10
    clock.now += 10
    e.sample({ident: fake_frame("a")}, clock.now)
    # "first" ended and "second" took its ident since: its CPU since birth, not 70 - 10
    monkeypatch.setitem(threading._active, ident, SimpleNamespace(name="second", native_id=2))
    clock.cpu[2] = 70
    clock.now += 10
    e.sample({ident: fake_frame("b")}, clock.now)
    assert e.sink.totals == {("first", "a"): 10, ("second", "b"): 70}


def test_timeline_keeps_samples_in_time_order():
    clock = FakeClock()
    e = Engine(clock=clock, namer=ByName(), sink=Sink(timeline=True))
    e.begin()
    for name in "abc":
        clock.now += 10
        e.sample({MAIN.ident: fake_frame(name)}, clock.now)
    samples = list(e.sink.chart.samples())
    assert [(s.timestamp, s.stack, s.weight) for s in samples] == [(10, ("a",), 10), (20, ("b",), 10), (30, ("c",), 10)]
    assert e.sink.chart.graph() == fs.FlameGraph({("a",): 10, ("b",): 10, ("c",): 10})


def test_path_shortening_is_stable_across_checkouts_and_environments():
    shorten = PathShortener(cwd="/home/me/proj", stdlib_dirs=["/usr/lib/python3.11"])
    assert shorten("/home/me/proj/app/main.py") == "app/main.py"
    assert shorten("/home/me/proj/.venv/lib/python3.11/site-packages/requests/api.py") == "site-packages/requests/api.py"
    assert shorten("/usr/lib/python3/dist-packages/yaml/x.py") == "site-packages/yaml/x.py"
    assert shorten("/usr/lib/python3.11/json/decoder.py") == "<stdlib>/json/decoder.py"
    assert shorten("<frozen importlib._bootstrap>") == "<frozen importlib._bootstrap>"
    assert shorten("/elsewhere/x.py") == "/elsewhere/x.py"


def test_frame_names_use_the_qualified_name_and_line():
    class K:
        def method(self):
            return sys._getframe()

    frame = K().method()
    namer = FrameNamer(shorten=PathShortener(cwd="/nowhere"))
    name = namer.name(frame)
    assert name.startswith(qualified("test_frame_names_use_the_qualified_name_and_line.<locals>.K.method") + " (")
    assert name.endswith(f":{frame.f_lineno})")
    assert FrameNamer(lines=False, shorten=PathShortener(cwd="/nowhere")).name(frame).endswith("test_engine.py)")


@pytest.mark.parametrize(
    "options, message",
    [
        ({"rate": 0.5}, "between 1 and 10,000"),
        ({"rate": 20_000}, "between 1 and 10,000"),
        ({"mode": "gpu"}, "unknown sampling mode"),
        ({"weight": "bytes"}, "unknown weight"),
        ({"mode": "cpu", "idle": True}, "needs mode 'wall'"),
        ({"duration": 0}, "must be positive"),
    ],
)
def test_bad_options_are_refused_with_a_reason(options, message):
    with pytest.raises(fs.ArgumentError, match=message):
        fs.SamplerOptions(**options)


def test_a_real_sampler_stops_cleanly_and_reports_quality():
    with fs.Sampler(fs.SamplerOptions(rate=1000)) as sampler:
        deadline = time.perf_counter() + 60  # spin until 10 ticks: a busy machine may stall the sampler for 100 ms
        while sampler.quality.ticks < 10 and time.perf_counter() < deadline:
            pass
    recording = sampler.stop()
    labels = recording.graph.metadata.labels
    assert recording.graph.metadata.unit == "ns"
    assert int(labels["ticks"]) >= 10
    assert {"rate_requested", "rate_achieved", "late", "missed", "missed_share", "duration_s", "python"} <= set(labels)
    assert not sampler.running


def test_too_few_samples_is_a_problem_worth_a_warning():
    sampler = fs.Sampler(fs.SamplerOptions(rate=10)).start()
    recording = sampler.stop()
    assert any("samples" in p for p in recording.problems)


def _switch_interval_while_sampling(sleep) -> float:
    sampler = fs.Sampler(fs.SamplerOptions(rate=1000))
    sampler._sleep = sleep
    with sampler:
        seen = sys.getswitchinterval()
        end = time.perf_counter() + 60  # until sampled: on a busy machine 50 ms can pass without a tick
        while sampler.quality.samples == 0 and time.perf_counter() < end:
            pass
    assert sampler.quality.samples > 0
    return seen


@pytest.mark.skipif(engine_module._Waiter is None, reason="the C extension _waiter is not built")
def test_the_punctual_sleep_leaves_the_switch_interval_alone():
    before = sys.getswitchinterval()
    assert _switch_interval_while_sampling(engine_module._PunctualSleep()) == before


def test_the_fallback_sleep_lowers_the_switch_interval_for_the_run():
    before = sys.getswitchinterval()
    assert _switch_interval_while_sampling(engine_module._Sleep()) == pytest.approx(min(before, 0.25 / 1000))


#: The switch interval for the waiter test: ten times the default, so that a wait for a whole
#: interval (what the waiter exists to avoid) stands far above the time a busy machine takes
#: to give the woken thread a CPU (a few ms with 2-4 CPU hogs on 2 cores).
LONG_SWITCH_INTERVAL = 0.05


@pytest.mark.skipif(engine_module._Waiter is None, reason="the C extension _waiter is not built")
def test_the_waiter_takes_the_gil_soon_after_the_due_time_while_a_thread_spins():
    """Without it a sample waits up to a whole switch interval for a busy thread. The test
    lengthens the interval to 50 ms and asks for one wait of 15 late by less than half of it:
    a waiter that waited for the interval is late by 50 ms every time (the spinning thread
    never lets the GIL go by itself), while waiting for a CPU on a loaded machine (which the
    lateness also includes: up to a scheduling period, some 30 ms at load 20, when the
    spinner is preempted holding the GIL) does not make all 15 waits that late."""
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            pass

    before = sys.getswitchinterval()
    sys.setswitchinterval(LONG_SWITCH_INTERVAL)
    thread = threading.Thread(target=spin)
    thread.start()
    try:
        waiter = engine_module._Waiter()
        lateness = []
        for _ in range(15):
            start = time.perf_counter_ns()
            assert waiter.wait(2_000_000, engine_module.GRAB_MICROSECONDS) is False
            lateness.append(time.perf_counter_ns() - start - 2_000_000)
        waiter.stop()
        assert waiter.wait(10**10, 20) is True  # stop() ends waits at once
    finally:
        stop.set()
        thread.join()
        sys.setswitchinterval(before)
    assert min(lateness) < LONG_SWITCH_INTERVAL * 1e9 / 2, lateness


class ClockReadBy(FakeClock):
    """A fake clock that notes which thread reads it."""

    def __init__(self) -> None:
        super().__init__()
        self.readers = []

    def now_ns(self) -> int:
        self.readers.append(threading.current_thread().name)
        return self.now


def test_the_clock_starts_in_the_sampler_thread_and_before_start_returns():
    """On a busy machine the sampler's new thread waited 10-35 ms for the GIL and a CPU; with
    the clock started in start(), the first sample was weighted with that whole wait and
    charged to wherever the program was by then (its first sleep, typically)."""
    clock = ClockReadBy()
    e = engine(clock, rate=1)
    e.start()
    try:
        assert clock.readers[0] == "flamespace-sampler"
        assert e.start_ns == clock.now
    finally:
        e.halt()


class LateSleep:
    """Stands in for the sampler's sleep: every wait ends ``late_ns`` after it was due,
    on the fake clock; after ``ticks`` waits it reports a halt."""

    def __init__(self, clock: FakeClock, late_ns: int, ticks: int) -> None:
        self.clock, self.late_ns, self.left = clock, late_ns, ticks

    def wait(self, delay_ns: int) -> bool:
        if self.left == 0:
            return True
        self.left -= 1
        self.clock.now += max(delay_ns, 0) + self.late_ns
        return False


def test_a_sampler_three_and_a_half_intervals_late_misses_three_ticks_in_four(monkeypatch):
    monkeypatch.setattr(engine_module, "_leave_signals_to_other_threads", lambda: None)
    clock = FakeClock()
    e = engine(clock, rate=1000, seed=1)
    e._sleep = LateSleep(clock, late_ns=3_500_000, ticks=40)
    e._run(threading.Event())
    q = e.quality
    assert (q.ticks, q.late, q.missed) == (40, 40, 120)
    assert q.missed_share() == 0.75
    assert any("missed 75% of its ticks" in p for p in q.problems(1000))


def test_missed_share_is_the_share_of_expected_ticks_missed_and_a_header():
    from flamespace.collect.engine import MAX_TRUSTED_MISSED_SHARE, Quality
    from flamespace.collect.sampler import quality_metadata

    q = Quality()
    assert q.missed_share() == 0.0  # nothing sampled: nothing missed
    q.ticks, q.missed, q.samples = 300, 100, 300
    assert q.missed_share() == 0.25
    labels = quality_metadata(SamplerOptions(rate=1000), q, 10**9).labels
    assert labels["missed_share"] == "0.2500"
    q.missed = 74  # 74 / 374 < 0.2: on the trusted side of the line
    assert q.missed_share() < MAX_TRUSTED_MISSED_SHARE and not q.problems(1000)
    q.missed = 76
    assert q.missed_share() > MAX_TRUSTED_MISSED_SHARE and any("fell behind" in p for p in q.problems(1000))


def test_the_longest_gap_between_ticks_is_kept_and_merged_as_a_maximum():
    from flamespace.collect.engine import Quality

    clock = FakeClock()
    e = engine(clock)
    e.begin()
    for step in (3, 40, 5):
        clock.now += step
        e.sample({MAIN.ident: fake_frame("main")}, clock.now)
    assert e.quality.longest_gap_ns == 40
    other = Quality()
    other.ticks, other.longest_gap_ns, other.first_error = 2, 25, "boom"
    e.quality.merge(other)
    assert (e.quality.ticks, e.quality.longest_gap_ns, e.quality.first_error) == (5, 40, "boom")


def test_a_sampler_a_fraction_of_an_interval_late_keeps_the_rate_asked(monkeypatch):
    """Waking and taking the GIL make every tick 0.1-0.5 ms late even on a quiet machine. When
    the next interval was counted from the late sample, 1,000 Hz became about 700 (0.4 ms late
    every tick: 1 / 1.4 ms). The schedule is kept: 2,000 ticks each 0.4 ms late take the 2 s
    that 2,000 mean intervals take. The intervals' sum has a standard deviation of 13 ms (2,000
    uniform draws, 0.29 ms each); the bound is 6 of them (arithmetic on a fixed seed)."""
    monkeypatch.setattr(engine_module, "_leave_signals_to_other_threads", lambda: None)
    clock = FakeClock()
    e = engine(clock, rate=1000, seed=3)
    e._sleep = LateSleep(clock, late_ns=400_000, ticks=2000)
    e._run(threading.Event())
    q = e.quality
    assert (q.ticks, q.late, q.missed) == (2000, 0, 0)
    assert abs((clock.now - e.start_ns) - 2000 * 1_000_000) < 6 * 13_000_000


class CycleProgram:
    """A program with a 10 ms cycle (5, 3 and 2 ms in work_a, work_b, work_c), seen through a
    fake clock: stands in for the sampler's sleep (exact, never late) and for
    ``sys._current_frames`` (the frame of the function the cycle is in at the fake time)."""

    IDENT = 424242  # a thread the threading module does not know: 'Thread 424242'
    PARTS = (("work_a", 5_000_000), ("work_b", 3_000_000), ("work_c", 2_000_000))

    def __init__(self, clock: FakeClock, ticks: int) -> None:
        self.clock, self.left = clock, ticks
        self.frames = {name: fake_frame("main", name) for name, _ in self.PARTS}

    def wait(self, delay_ns: int) -> bool:
        if self.left == 0:
            return True
        self.left -= 1
        self.clock.now += max(delay_ns, 0)
        return False

    def current_frames(self):
        phase = self.clock.now % 10_000_000
        for name, length in self.PARTS:
            if phase < length:
                return {self.IDENT: self.frames[name]}
            phase -= length
        raise AssertionError("unreachable")


def _work_a_share(monkeypatch, seed: int, ticks: int) -> float:
    clock = FakeClock()
    program = CycleProgram(clock, ticks)
    e = engine(clock, rate=100, seed=seed)
    e._sleep = program
    monkeypatch.setattr(engine_module.sys, "_current_frames", program.current_frames)
    e._run(threading.Event())
    totals = {stack[-1]: value for stack, value in e.sink.totals.items()}
    return totals["work_a"] / sum(totals.values())


def test_a_10_ms_cycle_sampled_at_100_hz_reads_its_split_with_little_noise(monkeypatch):
    """The issue's aliasing case: a program with a 10 ms cycle (5/3/2 ms) at 100 Hz read with a
    median max error of 4.4 points. Exponential intervals cannot fall into step with it, but
    with time weights each sample's weight varies as much as its mean: the variance of a share
    is twice a count's. Over 120 seeds of 400 ticks (4 s), work_a's share (truly 50%) must be
    unbiased and its standard deviation near that of uniform phases with uniform ±50% interval
    weights, sqrt(1.083 * 0.25 / 400) = 2.6 points, not exponential intervals' 3.5
    (sqrt(2 * 0.25 / 400)). A 120-seed sd has a standard error of 0.17 and 0.23 points there
    (simulated: 160 sets of 120); the bound, 3.05 points, is 2.8 of them above 2.6 and 2.0
    below 3.5: simulated, it fails with exponential intervals 99.4% of the time and with
    these in none of 160 sets (normal tail: 0.3%); on fixed seeds it is arithmetic. The mean
    must be within 4 standard errors (4 * 2.6 / sqrt(120) = 0.95 points)."""
    import statistics

    monkeypatch.setattr(engine_module, "_leave_signals_to_other_threads", lambda: None)
    shares = [100 * _work_a_share(monkeypatch, seed, 400) for seed in range(120)]
    assert abs(statistics.mean(shares) - 50) < 0.95, statistics.mean(shares)
    assert statistics.stdev(shares) < 3.05, statistics.stdev(shares)
