(* @start preamble *)
Require Import ZArith List Lia.
Import ListNotations.
Open Scope Z_scope.

Fixpoint count_pos_spec (l : list Z) : nat :=
  match l with
  | [] => O
  | x :: t => if Z.ltb 0 x then S (count_pos_spec t) else count_pos_spec t
  end.
(* @end preamble *)
(* @start code *)
Fixpoint count_pos_acc (l : list Z) (n : nat) : nat :=
  match l with
  | [] => n
  | x :: t => count_pos_acc t (if Z.ltb 0 x then S n else n)
  end.

Definition count_pos (l : list Z) : nat := count_pos_acc l O.
(* @end code *)
(* @start proof_aux *)
Lemma count_pos_acc_spec : forall l n, count_pos_acc l n = (n + count_pos_spec l)%nat.
Proof.
  induction l as [| x t IH]; intros n; simpl.
  - lia.
  - destruct (Z.ltb 0 x); rewrite IH; lia.
Qed.
(* @end proof_aux *)
(* @start spec *)
Theorem count_pos_correct : forall l, count_pos l = count_pos_spec l.
(* @end spec *)
Proof.
(* @start proof *)
  intros l. unfold count_pos. rewrite count_pos_acc_spec. reflexivity.
(* @end proof *)
Qed.
