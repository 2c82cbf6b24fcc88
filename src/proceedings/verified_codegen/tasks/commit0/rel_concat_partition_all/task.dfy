// Following is the block for necessary definitions
// <preamble>
function PartitionAll(n: int, s: seq<int>): seq<seq<int>>
    requires n > 0
    decreases |s|
{
    if |s| == 0 then [] else if |s| <= n then [s] else [s[..n]] + PartitionAll(n, s[n..])
}
function Concat(ss: seq<seq<int>>): seq<int>
{
    if |ss| == 0 then [] else ss[0] + Concat(ss[1..])
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
lemma {:induction false} ConcatPartitionAll(n: int, s: seq<int>)
    requires n > 0
    ensures Concat(PartitionAll(n, s)) == s
    decreases |s|
// </spec>
// <code>
{
    if |s| > n {
        ConcatPartitionAll(n, s[n..]);
        assert ([s[..n]] + PartitionAll(n, s[n..]))[1..] == PartitionAll(n, s[n..]);
        assert s[..n] + s[n..] == s;
    } else if |s| > 0 {
        assert [s][1..] == [];
    }
}
// </code>
