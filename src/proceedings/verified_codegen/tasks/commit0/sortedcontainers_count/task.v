(* @start preamble *)
Require Import ZArith List Lia.
Import ListNotations.
Open Scope Z_scope.

Fixpoint count_eq (l : list Z) (k : Z) : Z :=
  match l with
  | [] => 0
  | x :: t => (if Z.eqb x k then 1 else 0) + count_eq t k
  end.
(* @end preamble *)
(* @start code *)
Fixpoint count_value_from (l : list Z) (k acc : Z) : Z :=
  match l with
  | [] => acc
  | x :: t => count_value_from t k (acc + if Z.eqb x k then 1 else 0)
  end.

Definition CountValue (l : list Z) (k : Z) : Z := count_value_from l k 0.
(* @end code *)
(* @start proof_aux *)
Lemma count_value_from_spec : forall l k acc, count_value_from l k acc = acc + count_eq l k.
Proof.
  induction l as [| x t IH]; intros k acc; simpl.
  - lia.
  - rewrite IH. lia.
Qed.
(* @end proof_aux *)
(* @start spec *)
Theorem CountValue_correct : forall l k, CountValue l k = count_eq l k.
(* @end spec *)
Proof.
(* @start proof *)
  intros l k. unfold CountValue. rewrite count_value_from_spec. lia.
(* @end proof *)
Qed.
