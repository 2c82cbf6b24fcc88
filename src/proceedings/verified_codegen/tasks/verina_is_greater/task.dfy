// Following is the block for necessary definitions
// <preamble>
function AllBelow(s: seq<int>, n: int): bool
{
    if |s| == 0 then true else n > s[0] && AllBelow(s[1..], n)
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
method IsGreater(a: seq<int>, n: int) returns (r: bool)
    requires |a| > 0
    ensures r == AllBelow(a, n)
// </spec>
// <code>
{
    r := true;
    var i := |a|;
    while i > 0
        invariant 0 <= i <= |a|
        invariant r == AllBelow(a[i..], n)
    {
        i := i - 1;
        assert a[i..][1..] == a[i + 1..];
        r := n > a[i] && r;
    }
    assert a[0..] == a;
}
// </code>
