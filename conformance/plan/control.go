package plan

import (
	"fmt"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// A negative call is judged with its control: the call of the case its case
// names (catalog.Case.Control) for the same model, in the same run
// (results.Settle). The plan keeps the two together (withControls,
// controlsFirst, shardKey, Budget.Apply, Rerun), and Run and go test
// hold a negative's result until its control's is final.

// CaseModel names a call as its result is named (results.CaseModel).
func (c Call) CaseModel() results.CaseModel {
	return results.CaseModel{Case: c.Case.ID, Model: c.Model}
}

// ControlKey is the call whose result decides this call's: its case's
// control with the same model. ok is false for a case that names none.
func (c Call) ControlKey() (results.CaseModel, bool) {
	if c.Case.Control == "" {
		return results.CaseModel{}, false
	}
	return results.CaseModel{Case: c.Case.Control, Model: c.Model}, true
}

// withControls adds, before each negative call whose control call the
// candidates lack (a selection that took the negative alone), that control
// call, marked Control.
func withControls(cat *catalog.Catalog, calls []Call) []Call {
	have := map[results.CaseModel]bool{}
	for _, c := range calls {
		have[c.CaseModel()] = true
	}
	out := make([]Call, 0, len(calls))
	for _, c := range calls {
		if k, ok := c.ControlKey(); ok && !have[k] {
			if cs := cat.Case(k.Case); cs != nil { // the loader checked it exists
				out = append(out, Call{Case: cs, Model: k.Model, Control: true})
				have[k] = true
			}
		}
		out = append(out, c)
	}
	return out
}

// controlsFirst moves each control call before the first call that waits
// for it, keeping the order otherwise: Budget.Apply then decides a control
// before its negatives, and a run starts it first.
func controlsFirst(calls []Call) []Call {
	at := make(map[results.CaseModel]int, len(calls))
	for i, c := range calls {
		at[c.CaseModel()] = i
	}
	placed := map[results.CaseModel]bool{}
	out := make([]Call, 0, len(calls))
	for i, c := range calls {
		if placed[c.CaseModel()] {
			continue
		}
		if k, ok := c.ControlKey(); ok && !placed[k] {
			if j, found := at[k]; found && j > i {
				out = append(out, calls[j])
				placed[k] = true
			}
		}
		out = append(out, c)
		placed[c.CaseModel()] = true
	}
	return out
}

// shardKey is what a call is sharded by: its own ID, or for a call that
// waits for a control the control's, so a negative and its control always
// land in the same shard.
func shardKey(c Call, byID map[string]*catalog.Case) string {
	if k, ok := c.ControlKey(); ok {
		if cs := byID[k.Case]; cs != nil {
			return Call{Case: cs, Model: k.Model}.ID()
		}
	}
	return c.ID()
}

// withoutControl is why a negative call is not made when its control is
// not: the control's budget skip is the negative's too (the run is then
// incomplete); any other reason (a key missing, a precondition) leaves the
// negative unjudgeable, so it is skipped rather than sent.
// The control is named in Where: the verdict's notes group skips by their
// message, which must hold for every negative of the group.
func withoutControl(control Call) *vocab.Reason {
	where := fmt.Sprintf("control %s (%s)", control.Case.ID, control.Model)
	if control.Skip.Check == vocab.CheckBudget {
		return &vocab.Reason{Check: vocab.CheckBudget, Where: where, Message: "its control is held back: " + control.Skip.Message}
	}
	if control.Skip.Check == vocab.CheckListUnread { // one cause, said once: the list
		return &vocab.Reason{Check: vocab.CheckListUnread, Where: where, Message: control.Skip.Message}
	}
	return &vocab.Reason{Check: vocab.CheckControl, Where: where, Message: "its control cannot be made: " + control.Skip.Message}
}
