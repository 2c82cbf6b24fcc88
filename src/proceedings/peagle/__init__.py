"""P-EAGLE: parallel drafting for speculative decoding (paper: ../shared/papers/03_peagle.md).

An EAGLE-3 drafter (`drafter.Drafter`, method "eagle3") drafts one token per forward; P-EAGLE (method
"peagle") drafts all K in one forward from a learnable shared hidden state. `training.train_drafter`
trains either on the target's features (COD sampling, sequence partitioning for P-EAGLE),
`proposer.DrafterProposer` plugs a drafter into `core.speculative.speculative_decode` (lossless),
`experiment.reproduce` runs the matched comparison.
"""
