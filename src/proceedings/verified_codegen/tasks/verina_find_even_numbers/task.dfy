// Following is the block for necessary definitions
// <preamble>
function Evens(s: seq<int>): seq<int>
{
    if |s| == 0 then [] else Evens(s[..|s| - 1]) + (if s[|s| - 1] % 2 == 0 then [s[|s| - 1]] else [])
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
method FindEvenNumbers(arr: seq<int>) returns (result: seq<int>)
    ensures result == Evens(arr)
// </spec>
// <code>
{
    result := [];
    var i := 0;
    while i < |arr|
        invariant 0 <= i <= |arr|
        invariant result == Evens(arr[..i])
    {
        assert arr[..i + 1][..i] == arr[..i];
        if arr[i] % 2 == 0 {
            result := result + [arr[i]];
        }
        i := i + 1;
    }
    assert arr[..|arr|] == arr;
}
// </code>
