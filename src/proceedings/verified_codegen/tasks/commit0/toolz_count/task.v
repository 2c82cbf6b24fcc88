(* @start preamble *)
Require Import ZArith List Lia.
Import ListNotations.
Open Scope Z_scope.

Fixpoint count (l : list Z) : Z :=
  match l with
  | [] => 0
  | _ :: t => 1 + count t
  end.
(* @end preamble *)
(* @start code *)
Fixpoint count_from (l : list Z) (acc : Z) : Z :=
  match l with
  | [] => acc
  | _ :: t => count_from t (acc + 1)
  end.

Definition CountItems (l : list Z) : Z := count_from l 0.
(* @end code *)
(* @start proof_aux *)
Lemma count_from_spec : forall l acc, count_from l acc = acc + count l.
Proof.
  induction l as [| x t IH]; intros acc; cbn [count_from count].
  - lia.
  - rewrite IH. lia.
Qed.
(* @end proof_aux *)
(* @start spec *)
Theorem CountItems_correct : forall l, CountItems l = count l.
(* @end spec *)
Proof.
(* @start proof *)
  intros l. unfold CountItems. rewrite count_from_spec. lia.
(* @end proof *)
Qed.
