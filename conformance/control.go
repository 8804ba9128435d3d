package conformance

import (
	"fmt"
	"slices"
	"sync"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// A negative call is judged with its control: the call of the case its case
// names (catalog.Case.Control) for the same model, in the same run
// (results.Settle). The plan keeps the two together (withControls,
// controlsFirst, shardKey, Budget.Apply, PlanRerun), and Run and go test
// hold a negative's result until its control's is final.

// key names a call as its result is named (results.CaseModel).
func (c Call) key() results.CaseModel { return results.CaseModel{Case: c.Case.ID, Model: c.Model} }

// controlKey is the call whose result decides this call's: its case's
// control with the same model. ok is false for a case that names none.
func (c Call) controlKey() (results.CaseModel, bool) {
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
		have[c.key()] = true
	}
	out := make([]Call, 0, len(calls))
	for _, c := range calls {
		if k, ok := c.controlKey(); ok && !have[k] {
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
		at[c.key()] = i
	}
	placed := map[results.CaseModel]bool{}
	out := make([]Call, 0, len(calls))
	for i, c := range calls {
		if placed[c.key()] {
			continue
		}
		if k, ok := c.controlKey(); ok && !placed[k] {
			if j, found := at[k]; found && j > i {
				out = append(out, calls[j])
				placed[k] = true
			}
		}
		out = append(out, c)
		placed[c.key()] = true
	}
	return out
}

// shardKey is what a call is sharded by: its own ID, or for a call that
// waits for a control the control's, so a negative and its control always
// land in the same shard.
func shardKey(c Call, byID map[string]*catalog.Case) string {
	if k, ok := c.controlKey(); ok {
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
	return &vocab.Reason{Check: vocab.CheckControl, Where: where, Message: "its control cannot be made: " + control.Skip.Message}
}

// controlBook lets the negative calls of one Run wait for their controls'
// results. Each control of the run has a slot, filled once: when its result
// is final, when the run ends without starting it, or from the start for a
// result the run already had (Runner.Settled).
type controlBook struct {
	slots map[results.CaseModel]*controlSlot
}

type controlSlot struct {
	once sync.Once
	done chan struct{}
	res  results.Result
}

func newControlBook(calls []Call, settled []results.Result) *controlBook {
	b := &controlBook{slots: map[results.CaseModel]*controlSlot{}}
	for _, c := range calls {
		if k, ok := c.controlKey(); ok {
			b.slots[k] = nil
		}
	}
	for _, c := range calls {
		if s, wanted := b.slots[c.key()]; wanted && s == nil {
			b.slots[c.key()] = &controlSlot{done: make(chan struct{})}
		}
	}
	for _, r := range settled {
		k := r.CaseModel()
		if s, wanted := b.slots[k]; wanted && s == nil && !r.Cancelled {
			b.slots[k] = &controlSlot{done: make(chan struct{})}
			b.fill(k, r)
		}
	}
	return b
}

// fill records the final result of call k, if a negative waits for it. It
// keeps its own copy of what Settle reads: the caller's result goes on to
// emit, which may keep and change it.
func (b *controlBook) fill(k results.CaseModel, r results.Result) {
	s := b.slots[k]
	if s == nil {
		return
	}
	s.once.Do(func() {
		s.res = results.Result{Case: r.Case, Model: r.Model, Status: r.Status, HTTPStatus: r.HTTPStatus, Cancelled: r.Cancelled, Reasons: slices.Clone(r.Reasons)}
		close(s.done)
	})
}

// abandon fills the slots of calls the run will not start (it was
// interrupted): their negatives are cut by the interrupt too.
func (b *controlBook) abandon(calls []Call) {
	for _, c := range calls {
		b.fill(c.key(), results.Result{Case: c.Case.ID, Model: c.Model, Status: vocab.StatusSkip, Cancelled: true})
	}
}

// settle waits for the control of a negative call and decides the
// negative's result with it. A control the run does not have is none.
func (b *controlBook) settle(call Call, res results.Result) results.Result {
	k, ok := call.controlKey()
	if !ok {
		return res
	}
	s := b.slots[k]
	if s == nil {
		return results.Settle(res, k.Case, nil)
	}
	<-s.done
	return results.Settle(res, k.Case, &s.res)
}
