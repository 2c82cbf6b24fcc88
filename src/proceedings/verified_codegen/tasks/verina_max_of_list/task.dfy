// Following is the block for necessary definitions
// <preamble>
function MaxNat(s: seq<int>): int
{
    if |s| == 0 then 0 else if s[0] > MaxNat(s[1..]) then s[0] else MaxNat(s[1..])
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
method MaxOfList(lst: seq<int>) returns (r: int)
    requires |lst| > 0
    requires forall p :: 0 <= p < |lst| ==> lst[p] >= 0
    ensures r == MaxNat(lst)
// </spec>
// <code>
{
    r := 0;
    var i := |lst|;
    while i > 0
        invariant 0 <= i <= |lst|
        invariant r == MaxNat(lst[i..])
    {
        i := i - 1;
        assert lst[i..][1..] == lst[i + 1..];
        r := if lst[i] > r then lst[i] else r;
    }
    assert lst[0..] == lst;
}
// </code>
