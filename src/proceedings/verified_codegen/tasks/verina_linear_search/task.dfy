// Following is the block for necessary definitions
// <preamble>
function Position(s: seq<int>, e: int): nat
{
    if |s| == 0 then 0 else if s[0] == e then 0 else 1 + Position(s[1..], e)
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
method LinearSearch(a: seq<int>, e: int) returns (r: nat)
    ensures r == Position(a, e)
// </spec>
// <code>
{
    r := 0;
    var i := |a|;
    while i > 0
        invariant 0 <= i <= |a|
        invariant r == Position(a[i..], e)
    {
        i := i - 1;
        assert a[i..][1..] == a[i + 1..];
        r := if a[i] == e then 0 else 1 + r;
    }
    assert a[0..] == a;
}
// </code>
