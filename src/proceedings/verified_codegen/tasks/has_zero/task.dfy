// Following is the block for necessary definitions
// <preamble>
function ContainsZero(s: seq<int>): bool
{
    if |s| == 0 then false else s[0] == 0 || ContainsZero(s[1..])
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
method HasZero(a: seq<int>) returns (r: bool)
    ensures r == ContainsZero(a)
// </spec>
// <code>
{
    r := false;
    var i := |a|;
    while i > 0
        invariant 0 <= i <= |a|
        invariant r == ContainsZero(a[i..])
    {
        i := i - 1;
        assert a[i..][1..] == a[i + 1..];
        r := a[i] == 0 || r;
    }
    assert a[0..] == a;
}
// </code>
