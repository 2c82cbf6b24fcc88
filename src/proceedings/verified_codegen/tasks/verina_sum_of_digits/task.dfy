// Following is the block for necessary definitions
// <preamble>
function DigitSum(n: nat): nat
{
    if n < 10 then n else n % 10 + DigitSum(n / 10)
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
method sumOfDigits(n: nat) returns (result: nat)
    ensures result == DigitSum(n)
// </spec>
// <code>
{
    result := 0;
    var m := n;
    while m > 0
        invariant result + DigitSum(m) == DigitSum(n)
        decreases m
    {
        result := result + m % 10;
        m := m / 10;
    }
}
// </code>
