// Following is the block for necessary definitions
// <preamble>
function BinValue(s: seq<int>): int
{
    if |s| == 0 then 0 else 2 * BinValue(s[..|s| - 1]) + s[|s| - 1]
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
method BinaryToDecimal(digits: seq<int>) returns (r: int)
    requires forall p :: 0 <= p < |digits| ==> digits[p] == 0 || digits[p] == 1
    ensures r == BinValue(digits)
// </spec>
// <code>
{
    r := 0;
    var i := 0;
    while i < |digits|
        invariant 0 <= i <= |digits|
        invariant r == BinValue(digits[..i])
    {
        assert digits[..i + 1][..i] == digits[..i];
        r := 2 * r + digits[i];
        i := i + 1;
    }
    assert digits[..|digits|] == digits;
}
// </code>
