// Following is the block for necessary definitions
// <preamble>
function MinOf(s: seq<int>): int
    requires |s| > 0
{
    if |s| == 1 then s[0] else (if s[|s| - 1] < MinOf(s[..|s| - 1]) then s[|s| - 1] else MinOf(s[..|s| - 1]))
}

function MaxOf(s: seq<int>): int
    requires |s| > 0
{
    if |s| == 1 then s[0] else (if s[|s| - 1] > MaxOf(s[..|s| - 1]) then s[|s| - 1] else MaxOf(s[..|s| - 1]))
}
// </preamble>

// Following is the block for potential helper specifications
// <helpers>
// </helpers>

// Following is the block for proofs of lemmas
// <proofs>
// </proofs>

// Following is the block for the main specification
// <spec>
method differenceMinMax(a: seq<int>) returns (result: int)
    requires |a| > 0
    ensures result + MinOf(a) == MaxOf(a)
// </spec>
// <code>
{
    var lo, hi := a[0], a[0];
    var i := 1;
    while i < |a|
        invariant 1 <= i <= |a|
        invariant lo == MinOf(a[..i]) && hi == MaxOf(a[..i])
    {
        assert a[..i + 1][..i] == a[..i];
        if a[i] < lo {
            lo := a[i];
        }
        if a[i] > hi {
            hi := a[i];
        }
        i := i + 1;
    }
    assert a[..|a|] == a;
    result := hi - lo;
}
// </code>
