// Following is the block for necessary definitions
// <preamble>
function Count(s: seq<int>): int
{
    if |s| == 0 then 0 else Count(s[..|s| - 1]) + 1
}
function ILen(s: seq<int>): int
{
    if |s| == 0 then 0 else ILen(s[..|s| - 1]) + 1
}
// </preamble>

// Following is the block for potential helper specifications
// <helpers>
// </helpers>

// Following is the block for proofs of lemmas
// <proofs>
lemma CountILen(s: seq<int>)
    ensures Count(s) == ILen(s)
{
}
// </proofs>

// Following is the block for the main specification
// <spec>
lemma {:induction false} CountConcat(a: seq<int>, b: seq<int>)
    ensures Count(a + b) == ILen(a) + ILen(b)
// </spec>
// <code>
{
    if |b| == 0 {
        assert a + b == a;
        CountILen(a);
    } else {
        assert (a + b)[..|a + b| - 1] == a + b[..|b| - 1];
        CountConcat(a, b[..|b| - 1]);
    }
}
// </code>
