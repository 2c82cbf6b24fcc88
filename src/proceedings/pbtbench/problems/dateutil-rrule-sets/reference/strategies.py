from hypothesis import strategies as st
import datetime

_start = st.datetimes(datetime.datetime(1990, 1, 1), datetime.datetime(2030, 1, 1)).map(lambda d: d.replace(microsecond=0))
_interval, _count = st.integers(1, 30), st.integers(5, 50)


@st.composite
def _rule_and_picks(draw):
    """A rule and some of its own occurrences (the datetimes an exdate or a bound must equal)."""
    start, interval, count = draw(_start), draw(_interval), draw(_count)
    picks = draw(st.lists(st.integers(0, count - 1), min_size=1, max_size=4))
    return start, interval, count, [start + datetime.timedelta(days=interval * k) for k in picks]


_shared = st.shared(_rule_and_picks(), key="rule")
_rule_args = dict(start=_shared.map(lambda r: r[0]), interval=_shared.map(lambda r: r[1]), count=_shared.map(lambda r: r[2]))
_picks = _shared.map(lambda r: r[3])

STRATEGIES = {
    "prop_exdate_after_query": dict(**_rule_args, exdates=_picks),
    "prop_between_bounds": dict(**_rule_args, after=_picks.map(min), before=_picks.map(lambda p: max(p) + datetime.timedelta(days=400)),
                                inc=st.just(False)),
}
