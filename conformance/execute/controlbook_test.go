package execute

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// The book of a run hands each negative its control's final result: a
// result of the run, one it already had, or — for a control the
// interrupt left unstarted — a cut that makes the negative cut too.
func TestControlBook(t *testing.T) {
	control := &catalog.Case{ID: "chat-json", Tier: vocab.TierVerified}
	negative := &catalog.Case{ID: "chat-no-model", Tier: vocab.TierNegative, Control: "chat-json"}
	ctl, neg := plan.Call{Case: control, Model: "m"}, plan.Call{Case: negative, Model: "m"}
	refused := results.Result{Case: "chat-no-model", Model: "m", Tier: vocab.TierNegative, Status: vocab.StatusPass}
	tests := []struct {
		name      string
		calls     []plan.Call
		settled   []results.Result
		fill      func(b *controlBook)
		want      vocab.Status
		cancelled bool
	}{
		{"the control passed in the run", []plan.Call{ctl, neg}, nil,
			func(b *controlBook) {
				b.fill(ctl.CaseModel(), results.Result{Case: "chat-json", Model: "m", Status: vocab.StatusPass, HTTPStatus: 200})
			}, vocab.StatusPass, false},
		{"the control failed in the run", []plan.Call{ctl, neg}, nil,
			func(b *controlBook) {
				b.fill(ctl.CaseModel(), results.Result{Case: "chat-json", Model: "m", Status: vocab.StatusFail, HTTPStatus: 404})
			}, vocab.StatusInconclusive, false},
		{"the interrupt left the control unstarted", []plan.Call{neg, ctl}, nil,
			func(b *controlBook) { b.abandon([]plan.Call{ctl}) }, vocab.StatusInconclusive, true},
		{"a result the run had (resume)", []plan.Call{neg}, []results.Result{{Case: "chat-json", Model: "m", Status: vocab.StatusPass, HTTPStatus: 200}},
			func(*controlBook) {}, vocab.StatusPass, false},
		{"a cut result the run had is none", []plan.Call{neg}, []results.Result{{Case: "chat-json", Model: "m", Status: vocab.StatusError, Cancelled: true}},
			func(*controlBook) {}, vocab.StatusInconclusive, false},
		{"the run made the control again (re-run): its new result counts", []plan.Call{ctl, neg}, []results.Result{{Case: "chat-json", Model: "m", Status: vocab.StatusPass, HTTPStatus: 200}},
			func(b *controlBook) {
				b.fill(ctl.CaseModel(), results.Result{Case: "chat-json", Model: "m", Status: vocab.StatusFail, HTTPStatus: 404})
			}, vocab.StatusInconclusive, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newControlBook(tt.calls, tt.settled)
			tt.fill(b)
			b.fill(ctl.CaseModel(), results.Result{Case: "chat-json", Model: "m", Status: vocab.StatusPass, HTTPStatus: 200}) // a second fill changes nothing
			got := b.settle(neg, refused)
			assert.Equal(t, tt.want, got.Status)
			assert.Equal(t, tt.cancelled, got.Cancelled)
		})
	}
}
