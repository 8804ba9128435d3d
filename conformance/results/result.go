// Package results holds what one finished case × model produced, and the
// results.jsonl stream that carries it from the runner to the reporters.
//
// Field names are part of the interface contract (DESIGN.md): they may be
// added to, never renamed.
package results

import (
	"fmt"
	"time"

	"github.com/gwconform/gwconform/conformance/vocab"
)

// ImageInfo describes one decoded image without carrying its bytes.
type ImageInfo struct {
	Where  string `json:"where"`  // "data[0]", "event 4 (completed)"
	Format string `json:"format"` // png, jpeg, webp, or "unknown"
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Alpha  bool   `json:"alpha"`           // at least one pixel not fully opaque
	SHA256 string `json:"sha256"`          // of the encoded bytes
	Bytes  int    `json:"bytes"`           // encoded size
	Thumb  string `json:"thumb,omitempty"` // small PNG data URL for reports; empty when not kept
}

// Request summarises what was sent, with secrets removed and bodies truncated.
type Request struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Body   string `json:"body,omitempty"` // truncated, images replaced by a placeholder
	// Curl sends the request again (the key as its variable, the base URL
	// as ${GWCONFORM_BASE_URL}); only for a small body that is not
	// multipart: gwconform show --curl writes any request.
	Curl string `json:"curl,omitempty"`
}

// The sides of an observed exchange a result judges (Result.Side).
const (
	SideClient  = "client"
	SideGateway = "gateway"
)

// Result is one line of results.jsonl: one finished case × model.
type Result struct {
	Case    string `json:"case"`
	Feature string `json:"feature"`
	Model   string `json:"model"`
	// GatewayModel is the gateway's id for Model when it differs (a
	// --model-map or the key's list named it otherwise): Model, the spec
	// id, stays the key of cells, JUnit names, history and diff.
	GatewayModel string       `json:"gateway_model,omitempty"`
	Tier         vocab.Tier   `json:"tier"`
	Status       vocab.Status `json:"status"`
	DurationMS   int64        `json:"duration_ms"`
	TTFBMS       int64        `json:"ttfb_ms"`
	Attempts     int          `json:"attempts"`
	// Flaky: passed only when asked again after a 5xx or a lost
	// connection. Waiting on the rate limit is not flakiness.
	Flaky bool `json:"flaky"`
	// Waits is how often the call waited on the gateway's rate limit before
	// a send (a 429's Retry-After, a spent quota), and WaitMS how long in
	// all; neither is part of DurationMS, which counts from the send.
	Waits       int            `json:"waits,omitempty"`
	WaitMS      int64          `json:"wait_ms,omitempty"`
	Reasons     []vocab.Reason `json:"reasons"`
	Key         string         `json:"key,omitempty"`         // key kind (text, messages, image, alt), never the key
	Spec        string         `json:"spec,omitempty"`        // spec section
	Requirement string         `json:"requirement,omitempty"` // requirement sentence
	HTTPStatus  int            `json:"http_status,omitempty"`
	// Requests is how many HTTP requests the call made: retries, the
	// variants a gateway declined, and the extra model lists of a
	// differs_from check included.
	Requests int `json:"requests,omitempty"`
	// Refused is how many of those requests were answered 4xx or 5xx: no
	// output, so they cost nothing (CostUnits leaves them out).
	Refused int `json:"refused,omitempty"`
	// Variant names the body the gateway accepted, for a case with variants
	// (a shape the spec does not show): what client developers need to know.
	Variant string `json:"variant,omitempty"`
	// Stream timings: time to the first event, and the events seen.
	FirstEventMS int64       `json:"first_event_ms,omitempty"`
	Events       int         `json:"events,omitempty"`
	EventTypes   []string    `json:"event_types,omitempty"` // in arrival order, e.g. image_edit.partial_image
	Images       []ImageInfo `json:"images,omitempty"`
	// Params is the parameter assignment of a generated explore case
	// (pairwise row), for the capability map; omitted parameters are absent.
	Params  map[string]string `json:"params,omitempty"`
	Request *Request          `json:"request,omitempty"`
	Started time.Time         `json:"started"`
	// CostUnits is what this case × model spent, in the plan's cost units
	// (conformance.EstimateCost): the call's estimate for every attempt
	// that was not refused (a retry is billed as a call, an upper bound;
	// a 4xx or 5xx answer, Refused, costs nothing), plus what earlier runs
	// spent when --rerun-failed re-ran it. 0 for a call never sent.
	CostUnits float64 `json:"cost_units,omitempty"`
	// Waiver is the --waivers entry that matched this result and what it
	// did: waived the failure, was not needed (the result passed), or had
	// expired (the failure counts).
	Waiver *Waiver `json:"waiver,omitempty"`
	// Reruns counts the times --rerun-failed re-ran this case × model;
	// FirstStatus and FirstReasons are what its first run ended with, kept
	// so a failure that passed on a re-run (flaky) stays visible.
	Reruns       int            `json:"reruns,omitempty"`
	FirstStatus  vocab.Status   `json:"first_status,omitempty"`
	FirstReasons []vocab.Reason `json:"first_reasons,omitempty"`
	// RequestID is the gateway's id of the answer a non-passing result
	// judged (X-Request-Id, Request-Id or a like response header): what
	// the gateway's operators ask for first.
	RequestID string `json:"request_id,omitempty"`
	// Cancelled marks a call the run's own interruption cut short (Ctrl-C,
	// SIGTERM): not a verdict, and run --resume makes it again.
	Cancelled bool `json:"cancelled,omitempty"`
	// Transcript is a bounded copy of the call's exchange for the reports.
	Transcript *Transcript `json:"transcript,omitempty"`
	// Observed marks a judgement of traffic gwconform did not send
	// (gwconform judge, serve --judge): Side says which side of the
	// exchange it judges, client or gateway, and Model is then the
	// client's product token (observe.ClientRow) or the model requested.
	Observed bool   `json:"observed,omitempty"`
	Side     string `json:"side,omitempty"` // SideClient or SideGateway
	// Aside marks a result reported beside the verdict, never deciding
	// it: the client side of a relay, where the gateway is on trial (with
	// the stand-in, serve --judge, the client is, and decides).
	Aside bool `json:"aside,omitempty"`
	// Notes are what an observed request does beyond the spec's verified
	// rows (4.5 rule 4): no failure, but nothing the spec guarantees.
	Notes []string `json:"notes,omitempty"`
}

// Transcript is what a call sent and received, cut to a size a report can
// carry for every case: bodies cut, long streams shortened to their first
// and last events, images as short references (the result's Images hold
// their thumbnails). Exchange says where the whole exchange is kept.
type Transcript struct {
	// Exchange is the recording's file of the whole exchange (run --record,
	// or the one a replay answered from); empty when the run kept none.
	Exchange string            `json:"exchange,omitempty"`
	Rounds   []TranscriptRound `json:"rounds"`
	// OmittedRounds counts rounds beyond those kept.
	OmittedRounds int `json:"omitted_rounds,omitempty"`
}

// TranscriptRound is one request and its answer.
type TranscriptRound struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	// Key is the key kind sent (text, messages, image, alt, none, other).
	Key            string   `json:"key"`
	RequestHeader  []string `json:"request_header,omitempty"` // "Name: value"
	RequestBody    string   `json:"request_body,omitempty"`
	Status         int      `json:"status,omitempty"`
	ResponseHeader []string `json:"response_header,omitempty"`
	// ReceivedMS is when the response's headers arrived, after sending.
	ReceivedMS   int64             `json:"received_ms,omitempty"`
	ResponseBody string            `json:"response_body,omitempty"`
	Events       []TranscriptEvent `json:"events,omitempty"`
	// OmittedEvents counts the events left out between the first and the
	// last ones kept.
	OmittedEvents int    `json:"omitted_events,omitempty"`
	Error         string `json:"error,omitempty"`
}

// TranscriptEvent is one stream event and when it arrived after sending.
type TranscriptEvent struct {
	OffsetMS int64  `json:"offset_ms"`
	Text     string `json:"text"`
}

// WaiverState says what a matching --waivers entry did to a result.
type WaiverState string

const (
	// WaiverApplied: the result failed and the entry was live: status waived.
	WaiverApplied WaiverState = "applied"
	// WaiverNotNeeded: the entry is live but the result passed: the waiver
	// can go ("waiver no longer needed").
	WaiverNotNeeded WaiverState = "not-needed"
	// WaiverExpired: the entry's date has passed: it no longer applies, and
	// a failure counts again.
	WaiverExpired WaiverState = "expired"
)

// Waiver is one --waivers entry as recorded on a result it matched.
type Waiver struct {
	Case    string      `json:"case"`    // the entry's case glob
	Model   string      `json:"model"`   // the entry's model glob
	Reason  string      `json:"reason"`  // why the deviation is accepted
	Link    string      `json:"link"`    // the ticket tracking it
	Expires string      `json:"expires"` // YYYY-MM-DD: from this day (UTC) on, the entry no longer applies
	Source  string      `json:"source"`  // file:line of the entry
	State   WaiverState `json:"state"`
}

// Describe renders the entry for a person: "reason (link), expires 2026-04-01".
func (w Waiver) Describe() string {
	s := w.Reason
	if w.Link != "" {
		s += " (" + w.Link + ")"
	}
	if w.State == WaiverExpired {
		return s + ", expired " + w.Expires
	}
	return s + ", expires " + w.Expires
}

// CaseModel names a result's call: its case and model. A run holds one
// result per CaseModel; resume, re-run and controls match results and calls
// by it.
type CaseModel struct{ Case, Model string }

// CaseModel is the result's case × model.
func (r Result) CaseModel() CaseModel { return CaseModel{r.Case, r.Model} }

// Decides reports whether the result decides the verdict and the exit code
// (Tier.Decides), unless it is reported aside.
func (r Result) Decides(strict bool) bool { return !r.Aside && r.Tier.Decides(strict) }

// NotOffered is true for a result skipped because the gateway declares it
// does not offer the feature (--offers).
func (r Result) NotOffered() bool {
	return r.Status == vocab.StatusSkip && len(r.Reasons) > 0 && r.Reasons[0].Check == vocab.CheckNotOffered
}

// FirstReason is the result's first reason and how many more there are,
// on one line; "" when it has none.
func (r Result) FirstReason() string {
	if len(r.Reasons) == 0 {
		return ""
	}
	s := r.Reasons[0].String()
	if n := len(r.Reasons) - 1; n > 0 {
		s += fmt.Sprintf(" (+%d more)", n)
	}
	return s
}

// Failed is true for a result that breaks the run when it Decides. A waived
// result is not failed: its entry accepted the deviation; nor is a call an
// interrupt cut: no verdict on the gateway.
func (r Result) Failed() bool {
	return (r.Status == vocab.StatusFail || r.Status == vocab.StatusError) && !r.Cancelled
}

// FailsRun is true for a result that decides the exit code and failed.
func (r Result) FailsRun(strict bool) bool { return r.Decides(strict) && r.Failed() }

// Rerunnable reports whether --rerun-failed runs a result again: it decides
// the exit code (Decides) and ended fail, error, throttled or inconclusive —
// the results that would page someone or leave the run incomplete — or it
// was cut by an interrupt, of any tier: a call never finished, as run
// --resume makes it again (plan.Resume). A waived result is a known
// deviation, not run again.
func (r Result) Rerunnable(strict bool) bool {
	return r.Cancelled || r.Decides(strict) && (r.Failed() || r.Status == vocab.StatusThrottled || r.Status == vocab.StatusInconclusive)
}

// Rerun combines a result with its re-run: the re-run's outcome, with the
// first run's status and reasons kept (FirstStatus, FirstReasons: from the
// very first run when re-run more than once), the re-runs counted, and the
// cost of every run added up. A re-run that passes is flaky: it failed
// once, and the report shows why. A control re-run beside its negative
// (--rerun-failed makes the pair again) may have passed the first time: it
// is flaky only when some run of it did not pass.
func Rerun(first, again Result) Result {
	again.Reruns = first.Reruns + 1
	again.FirstStatus, again.FirstReasons = first.Status, first.Reasons
	if first.Reruns > 0 {
		again.FirstStatus, again.FirstReasons = first.FirstStatus, first.FirstReasons
	}
	if again.FirstReasons == nil {
		again.FirstReasons = []vocab.Reason{}
	}
	again.CostUnits += first.CostUnits
	again.Refused += first.Refused
	if again.Status == vocab.StatusPass && again.FirstStatus != vocab.StatusPass {
		again.Flaky = true
	}
	return again
}
