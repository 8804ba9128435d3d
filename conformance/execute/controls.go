package execute

import (
	"slices"
	"sync"

	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

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

func newControlBook(calls []plan.Call, settled []results.Result) *controlBook {
	b := &controlBook{slots: map[results.CaseModel]*controlSlot{}}
	for _, c := range calls {
		if k, ok := c.ControlKey(); ok {
			b.slots[k] = nil
		}
	}
	for _, c := range calls {
		if s, wanted := b.slots[c.CaseModel()]; wanted && s == nil {
			b.slots[c.CaseModel()] = &controlSlot{done: make(chan struct{})}
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
func (b *controlBook) abandon(calls []plan.Call) {
	for _, c := range calls {
		b.fill(c.CaseModel(), results.Result{Case: c.Case.ID, Model: c.Model, Status: vocab.StatusSkip, Cancelled: true})
	}
}

// settle waits for the control of a negative call and decides the
// negative's result with it. A control the run does not have is none.
func (b *controlBook) settle(call plan.Call, res results.Result) results.Result {
	k, ok := call.ControlKey()
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
