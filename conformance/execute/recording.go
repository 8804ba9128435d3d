package execute

import (
	"context"
	"net/http"

	"github.com/gwconform/gwconform/conformance/pace"
	"github.com/gwconform/gwconform/conformance/plan"
	"github.com/gwconform/gwconform/conformance/record"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// runLogged runs one call inside a record.Log, which the target's transport
// finds in the request context: a record.Tap captures the call's exchanges
// (and writes them under run --record), a record.Replay answers them from a
// recording. The call's transcript goes into its result.
func (r *Runner) runLogged(ctx context.Context, client *http.Client, o Options, p *pace.Pacer, call plan.Call) results.Result {
	ctx, log := record.Begin(ctx, record.Call{Case: call.Case.ID, Feature: call.Case.Feature, Model: call.Model, Key: string(call.Case.Key)})
	res := r.runCall(ctx, client, o, p, call)
	tr, err := log.End() // runCall has closed every body
	res.Transcript = tr
	if log.Replayed() {
		res.CostUnits = 0 // a replay sends nothing, so it spends nothing
	}
	if err != nil {
		// --record was asked for and this exchange is not kept: the run
		// itself broke, whatever the gateway answered.
		res.Status = vocab.StatusError
		res.Reasons = append([]vocab.Reason{{Check: "record", Message: "writing the recording failed: " + err.Error()}}, res.Reasons...)
	}
	return res
}

// requestIDHeaders are the response headers gateways name an answer by
// (OpenAI's x-request-id, Anthropic's request-id, Azure's, AWS's, a CDN's),
// in the order they are read.
var requestIDHeaders = []string{"X-Request-Id", "Request-Id", "Apim-Request-Id", "X-Ms-Request-Id", "X-Amzn-Requestid", "X-Amz-Request-Id", "X-Correlation-Id", "X-Trace-Id", "Cf-Ray"}

// requestID is the gateway's id of a response, or "".
func requestID(h http.Header) string {
	for _, name := range requestIDHeaders {
		if v := h.Get(name); v != "" {
			return results.Truncate(v, 200)
		}
	}
	return ""
}
