// Following is the block for necessary definitions
// <preamble>
function CountOccurrences(s: seq<int>, key: int): nat
{
    if |s| == 0 then 0 else CountOccurrences(s[..|s| - 1], key) + (if s[|s| - 1] == key then 1 else 0)
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
method only_once(a: seq<int>, key: int) returns (result: bool)
    ensures result <==> CountOccurrences(a, key) == 1
// </spec>
// <code>
{
    var count := 0;
    var i := 0;
    while i < |a|
        invariant 0 <= i <= |a|
        invariant count == CountOccurrences(a[..i], key)
    {
        assert a[..i + 1][..i] == a[..i];
        if a[i] == key {
            count := count + 1;
        }
        i := i + 1;
    }
    assert a[..|a|] == a;
    result := count == 1;
}
// </code>
