// Following is the block for necessary definitions
// <preamble>
function FindIndex(s: seq<int>, key: int): int
{
    if |s| == 0 then -1 else if s[0] == key then 0 else if FindIndex(s[1..], key) == -1 then -1 else FindIndex(s[1..], key) + 1
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
method Find(a: seq<int>, key: int) returns (r: int)
    ensures r == FindIndex(a, key)
// </spec>
// <code>
{
    r := -1;
    var i := |a|;
    while i > 0
        invariant 0 <= i <= |a|
        invariant r == FindIndex(a[i..], key)
    {
        i := i - 1;
        assert a[i..][1..] == a[i + 1..];
        r := if a[i] == key then 0 else if r == -1 then -1 else r + 1;
    }
    assert a[0..] == a;
}
// </code>
