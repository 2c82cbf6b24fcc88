// Following is the block for necessary definitions
// <preamble>
function Value(s: seq<int>): int
{
    if |s| == 0 then 0 else s[0] + 10 * Value(s[1..])
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
method DigitsValue(a: seq<int>) returns (r: int)
    ensures r == Value(a)
// </spec>
// <code>
{
    r := 0;
    var i := |a|;
    while i > 0
        invariant 0 <= i <= |a|
        invariant r == Value(a[i..])
    {
        i := i - 1;
        assert a[i..][1..] == a[i + 1..];
        r := a[i] + 10 * r;
    }
    assert a[0..] == a;
}
// </code>
