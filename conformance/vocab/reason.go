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

// Cause names what the gateway did, so that one defect met by many cases
// is read once: for a status, the status it answered and its error's
// message or type ("HTTP 404: Route not found"); for any other check, the check
// and its message without its parentheses (the rows cited, a rule id, a
// decoder's words: the group's detail). The values of one case (numbers,
// quoted values, ids) are taken out.
func (r Reason) Cause() string {
	if code, body, _ := strings.Cut(r.Actual, " "); r.Check == "status" && statusRE.MatchString(code) {
		if e := errorText(body); e != "" {
			return "HTTP " + code + ": " + e
		}
		return "HTTP " + code
	}
	return r.Check + ": " + valuesOut(withoutParens(r.Message))
}

var (
	statusRE     = regexp.MustCompile(`^[1-5]\d\d$`)
	quotedRE     = regexp.MustCompile(`"[^"]*"|'[^']*'`)
	numberRE     = regexp.MustCompile(`\d+(\.\d+)?`)
	idRE         = regexp.MustCompile(`(?i)\b(?:[a-z]+[_-])?(?:[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}|[0-9a-f]{12,})\b`) // req_8f3a9c2e5b1d, a UUID
	errTypeRE    = regexp.MustCompile(`"error"\s*:\s*\{[^}]*?"(?:type|code)"\s*:\s*"([^"]+)"`)
	errMessageRE = regexp.MustCompile(`"message"\s*:\s*"((?:[^"\\]|\\.)+)"`)
)

// errorText is an error body's message, else its type (error.type or
// error.code), else its text, the values of one case out and at most a
// line.
func errorText(body string) string {
	text := strings.TrimSpace(body)
	if m := errMessageRE.FindStringSubmatch(text); m != nil {
		text = strings.ReplaceAll(m[1], `\"`, `"`)
	} else if m := errTypeRE.FindStringSubmatch(text); m != nil {
		text = m[1]
	}
	text = strings.Join(strings.Fields(valuesOut(text)), " ")
	if len(text) > 80 {
		text = text[:80] + "…"
	}
	return text
}

// valuesOut takes the values of one case out of a text: ids, quoted values
// and numbers.
func valuesOut(s string) string {
	s = idRE.ReplaceAllString(s, "…")
	return numberRE.ReplaceAllString(quotedRE.ReplaceAllString(s, "…"), "N")
}

// withoutParens drops the parenthesised parts of s, and the space before
// each.
func withoutParens(s string) string {
	var b strings.Builder
	depth := 0
	for _, c := range s {
		switch {
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(c)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
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
	// CheckListUnread: the model's key's list could not be read (a 5xx, a
	// 404, a body that is no model list), and no --model-map names the
	// model: nothing is sent under a guessed id, and the run is incomplete.
	CheckListUnread = "list-unread"
	// A replay's reasons (run --replay): no exchange recorded for the case
	// × model, a rendered request that differs from the recorded one, or a
	// recorded call the recording run itself cut short.
	CheckNoRecording    = "no-recording"
	CheckRecordingStale = "recording-stale"
	CheckRecordingCut   = "recording-cut"
	// CheckControl: a negative case's control (Settle) was not served, or
	// cannot be made (a skipped negative: nothing it could show is judged).
	CheckControl = "control"
	// CheckOverCap: an observed exchange whose bodies passed the relay's
	// cap (record.Tap.Cap): relayed whole, recorded up to the cap, and
	// not judged, on either side. Counted, never failed.
	CheckOverCap = "over-the-cap"
)
