// Following is the block for necessary definitions
// <preamble>
function CountBelow(s: seq<int>, threshold: int): nat
{
    if |s| == 0 then 0 else CountBelow(s[..|s| - 1], threshold) + (if s[|s| - 1] < threshold then 1 else 0)
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
method CountLessThan(numbers: seq<int>, threshold: int) returns (r: nat)
    ensures r == CountBelow(numbers, threshold)
// </spec>
// <code>
{
    r := 0;
    var i := 0;
    while i < |numbers|
        invariant 0 <= i <= |numbers|
        invariant r == CountBelow(numbers[..i], threshold)
    {
        assert numbers[..i + 1][..i] == numbers[..i];
        r := r + (if numbers[i] < threshold then 1 else 0);
        i := i + 1;
    }
    assert numbers[..|numbers|] == numbers;
}
// </code>
