package vocab

import (
	"regexp"
	"strings"
)

// Reason explains one broken expectation: which check, where (a JSON path,
// "event 3", "image 1"), what was expected and what came back.
type Reason struct {
	Check    string `json:"check"`              // status, schema, json, sse, image, content_type, transport, ...
	Where    string `json:"where,omitempty"`    // JSON path or event/image number
	Expected string `json:"expected,omitempty"` // rendered for humans
	Actual   string `json:"actual,omitempty"`   // rendered for humans, truncated
	Message  string `json:"message"`            // one sentence
}

// String renders a reason on one line: "check at where: message (expected X, got Y)".
func (r Reason) String() string {
	s := r.Check
	if r.Where != "" {
		s += " at " + r.Where
	}
	s += ": " + r.Message
	if r.Expected != "" || r.Actual != "" {
		s += " (expected " + r.Expected + ", got " + r.Actual + ")"
	}
	return s
}

// Cause names what a reason found wrong, without the values of one case:
// its check and its message, with the numbers and quoted values outside
// parentheses taken out (a parenthesis holds a rule id or a spec citation,
// which belong to the cause). Reasons of one cause in many cases name one
// defect, which triage reads once.
func (r Reason) Cause() string {
	return r.Check + ": " + causeText(r.Message)
}

var (
	quotedRE = regexp.MustCompile(`"[^"]*"|'[^']*'`)
	numberRE = regexp.MustCompile(`\d+(\.\d+)?`)
)

// causeText replaces quoted values and numbers outside parentheses.
func causeText(s string) string {
	var b strings.Builder
	depth, start := 0, 0
	flush := func(end int) {
		part := quotedRE.ReplaceAllString(s[start:end], "…")
		b.WriteString(numberRE.ReplaceAllString(part, "N"))
	}
	for i, c := range s {
		switch c {
		case '(':
			if depth == 0 {
				flush(i)
				start = i
			}
			depth++
		case ')':
			if depth > 0 {
				depth--
				if depth == 0 {
					b.WriteString(s[start : i+1])
					start = i + 1
				}
			}
		}
	}
	if depth > 0 {
		b.WriteString(s[start:])
	} else {
		flush(len(s))
	}
	return b.String()
}

// Checks of a skipped result's reason: why a planned call was not made. The
// verdict reads them, so a missing key, a rejected key and a budget are each
// said once, not once per case.
const (
	CheckKeyMissing   = "key-missing"  // no key of that kind configured
	CheckKeyRejected  = "key-rejected" // the key was refused by the preflight call
	CheckPrecondition = "precondition" // e.g. no public image URL for the URL-reference case
	CheckBudget       = "budget"       // beyond --max-calls or --max-cost
	// CheckNotOffered: the feature is not among those the gateway declares
	// it offers (--offers). Nothing is sent, and the run is not incomplete
	// for it: the gateway said it does not serve the feature.
	CheckNotOffered = "not-offered"
	// CheckNotListed: the model's key lists it under no name, and no
	// --model-map names it; nothing is sent, and the run is incomplete.
	CheckNotListed = "not-listed"
	// A replay's reasons (run --replay): no exchange recorded for the case
	// × model, a rendered request that differs from the recorded one, or a
	// recorded call the recording run itself cut short.
	CheckNoRecording    = "no-recording"
	CheckRecordingStale = "recording-stale"
	CheckRecordingCut   = "recording-cut"
	// CheckControl: a negative case's control (Settle) was not served, or
	// cannot be made (a skipped negative: nothing it could show is judged).
	CheckControl = "control"
)
