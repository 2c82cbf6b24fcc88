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
Definition count_pos (l : list Z) : nat :=
  fold_right (fun x n => if Z.ltb 0 x then S n else n) O l.
(* @end code *)
(* @start proof_aux *)
(* @end proof_aux *)
(* @start spec *)
Theorem count_pos_correct : forall l, count_pos l = count_pos_spec l.
(* @end spec *)
Proof.
(* @start proof *)
  induction l as [| x t IH]; simpl; [reflexivity | rewrite <- IH; reflexivity].
(* @end proof *)
Qed.
