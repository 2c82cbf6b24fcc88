(* @start preamble *)
Require Import ZArith List Lia.
Import ListNotations.
Open Scope Z_scope.

Fixpoint sum (l : list Z) : Z :=
  match l with
  | [] => 0
  | x :: t => x + sum t
  end.
(* @end preamble *)
(* @start code *)
Fixpoint sum_acc (l : list Z) (acc : Z) : Z :=
  match l with
  | [] => acc
  | x :: t => sum_acc t (acc + x)
  end.

Definition sum_list (l : list Z) : Z := sum_acc l 0.
(* @end code *)
(* @start proof_aux *)
Lemma sum_acc_spec : forall l acc, sum_acc l acc = acc + sum l.
Proof.
  induction l as [| x t IH]; intros acc; simpl.
  - lia.
  - rewrite IH. lia.
Qed.
(* @end proof_aux *)
(* @start spec *)
Theorem sum_list_correct : forall l, sum_list l = sum l.
(* @end spec *)
Proof.
(* @start proof *)
  intros l. unfold sum_list. rewrite sum_acc_spec. lia.
(* @end proof *)
Qed.
