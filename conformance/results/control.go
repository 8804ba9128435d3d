package results

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gwconform/gwconform/conformance/vocab"
)

// A negative case names a control: a verified case on the same endpoint,
// sent with the key and model the negative's request would have without its
// defect (the image key's generation for a key-permission refusal, a listed
// model's message for a retired model, the same request with its model for
// a missing model). A refusal proves the rule only when the endpoint served
// the control: a route that answers 404 to everything, or a relay that
// answers 400 to everything, refuses the defective request too.

// Settle decides a negative result by its control's. control is the
// control's result in the same run, nil when the run has none (controlID
// then names it). A negative refused as stated (pass) stays a pass only
// when the gateway served the control (Served); otherwise it is
// inconclusive, with a reason naming the control and why it was not
// served. When the control was cut by an interrupt, or the run ended
// before it started (Cancelled), the negative is cancelled too: run
// --resume makes the pair again. A negative that failed, errored or was
// throttled keeps its result: an accepted defect, or an answer the rule
// does not allow, needs no control.
func Settle(neg Result, controlID string, control *Result) Result {
	if neg.Tier != vocab.TierNegative || neg.Status != vocab.StatusPass || neg.Cancelled {
		return neg
	}
	if control != nil && control.Served() {
		return neg
	}
	r := vocab.Reason{Check: vocab.CheckControl, Where: fmt.Sprintf("%s (%s)", controlID, neg.Model), Expected: "the control served (a 2xx success)", Actual: "not in this run",
		Message: "refused as stated, but the control — the same request without the defect — was not served, so the refusal proves nothing"}
	if control != nil {
		r.Actual = string(control.Status)
		if control.HTTPStatus != 0 {
			r.Actual += fmt.Sprintf(" (HTTP %d)", control.HTTPStatus)
		}
		if len(control.Reasons) > 0 {
			why := max(slices.IndexFunc(control.Reasons, refusedInBody), 0) // a 200's failure form first
			r.Actual += ": " + Truncate(control.Reasons[why].String(), 200)
		}
		if control.Cancelled {
			r.Actual = "cut by the run's interrupt"
			neg.Cancelled = true
		}
	}
	neg.Status, neg.Flaky = vocab.StatusInconclusive, false
	neg.Reasons = append([]vocab.Reason{r}, neg.Reasons...)
	return neg
}

// Served reports whether the gateway served the call: it answered with a
// success status (2xx) and not with the failure form of 2.2 and 7 (an error
// member, an empty image list), whether or not every other check held. A
// control must show that much: the endpoint serves the request without
// the negative's defect. A control that failed for another reason (the
// wrong model named, an image of the wrong size) or whose failure is
// waived was served; a call skipped, throttled, errored or cut was not.
func (r Result) Served() bool {
	if r.Cancelled || r.HTTPStatus/100 != 2 {
		return false
	}
	switch r.Status {
	case vocab.StatusPass:
		return true
	case vocab.StatusFail, vocab.StatusWaived:
		return !slices.ContainsFunc(r.Reasons, refusedInBody)
	}
	return false
}

// refusedInBody is the reason the success-body rule of 2.2 and 7 gives (the
// engine's checkSuccessBody): an error member, or an empty data list.
func refusedInBody(r vocab.Reason) bool {
	return r.Check == "json" && (r.Where == "error" || r.Where == "data" && r.Actual == "[]")
}

// describeControl names an inconclusive result and its control's status,
// for a note: "chat-no-model on gen-5.5: control chat-json (gen-5.5) fail
// (HTTP 400)"; the result's own reason has the rest.
func describeControl(r Result) string {
	s := r.Case + " on " + r.Model
	for _, reason := range r.Reasons {
		if reason.Check == vocab.CheckControl {
			status, _, _ := strings.Cut(reason.Actual, ": ")
			return fmt.Sprintf("%s: control %s %s", s, reason.Where, status)
		}
	}
	return s
}
