package check

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/modelid"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// checker collects the broken expectations of one call. Every check appends
// reasons and never stops the others, so a failure shows everything wrong
// at once, as h2spec does.
type checker struct {
	reasons []vocab.Reason
	// What some expectations compare with: the model the request names (the
	// call's when its body names none), and the exchange's own times (sent: the request; received: the first response
	// byte). Judging from these rather than the clock keeps a later
	// re-check of the same traffic in agreement.
	model          string
	sent, received time.Time
	// request is the request the answer is judged against, as written (the
	// accepted variant's, for a case with variants): rules of a kind read
	// max_tokens, n, size and output_format from it.
	request *catalog.Request
	// strict adds the strict tier's readings of a kind's rules (a JSON media
	// type, a named background) in strict cases.
	strict bool
	// cut: the client ended the exchange early (Exchange.Cut).
	cut bool
	// explore judges what the spec does not owe (an explore case, a
	// request beyond the verified rows): a rule that holds only within
	// the verified rows says so in its reason.
	explore bool
	// spec is the spec's id of the model under test (the result's model),
	// where model is the id the request named (the gateway's).
	spec string
	// rows are the spec rows the case cites: the reason of a generic check
	// (a status, a matcher) names those it stands for (see cite).
	rows []*catalog.SpecRow
}

// maxReasons bounds the reasons kept for one call: a hostile stream of a
// million broken events must not make a million reasons.
const maxReasons = 100

func (c *checker) fail(check, where, expected, actual, format string, args ...any) {
	switch {
	case len(c.reasons) > maxReasons:
		return
	case len(c.reasons) == maxReasons:
		c.reasons = append(c.reasons, vocab.Reason{Check: check, Where: where,
			Message: fmt.Sprintf("more than %d reasons; the rest are not kept", maxReasons)})
		return
	}
	c.reasons = append(c.reasons, vocab.Reason{
		Check:    check,
		Where:    where,
		Expected: expected,
		Actual:   results.Truncate(actual, 300),
		Message:  fmt.Sprintf(format, args...),
	})
}

// cite names the spec rows behind a generic check, for its reason: the
// case's rows whose sentence names the field (`stop_reason`,
// `content[].text`), or else every row of the case (field "": all of
// them), by section when there are more than a few. A reader then sees
// which sentence of the spec the gateway broke; the specific checks
// (images, streams, created) name their section themselves.
func (c *checker) cite(field string) string {
	var named, all, sections []string
	for _, r := range c.rows {
		all = append(all, r.ID)
		if !slices.Contains(sections, r.Section) {
			sections = append(sections, r.Section)
		}
		if field != "" && (strings.Contains(r.Sentence, "`"+field+"`") || strings.Contains(r.Sentence, "."+field+"`")) {
			named = append(named, r.ID)
		}
	}
	switch {
	case len(named) > 0:
		all = named
	case len(all) > 3:
		all = sections
	case len(all) == 0:
		return ""
	}
	return " (spec " + strings.Join(all, ", ") + ")"
}

// fieldOf is the field a matcher path or stream place ends with:
// "choices.0.finish_reason" and "message_delta stop_reason" end with
// finish_reason and stop_reason.
func fieldOf(path string) string { return path[strings.LastIndexAny(path, ". ")+1:] }

// checkStatus compares the HTTP status; a body excerpt goes with a mismatch
// because it usually says why.
func (c *checker) checkStatus(cs *catalog.Case, got int, body []byte) bool {
	if cs.Accepts(got) {
		return true
	}
	actual := fmt.Sprintf("%d", got)
	if len(body) > 0 {
		actual += " " + strings.Join(strings.Fields(string(body)), " ")
	}
	c.fail("status", "", cs.WantStatus(), actual, "HTTP status %d, want %s%s", got, cs.WantStatus(), c.cite(""))
	return false
}

// checkContentType accepts the media type with any parameters
// ("application/json; charset=utf-8" is the same media type).
func (c *checker) checkContentType(h http.Header, want string) {
	got := h.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(got); err != nil || !strings.EqualFold(mt, want) {
		c.fail("content_type", "Content-Type", want, got, "response media type is %q, want %s", got, want)
	}
}

// checkSuccessBody applies the rule of spec 2.2 and 7: a success status may
// still carry an error field or (images) an empty data list; both are failures.
func (c *checker) checkSuccessBody(body []byte, images bool) {
	if e := gjson.GetBytes(body, "error"); e.Exists() && e.Type != gjson.Null {
		c.fail("json", "error", "no error field under a 2xx status", e.Raw,
			"a success response carries an error field (spec 7: clients must treat it as failure)")
	}
	if images {
		if d := gjson.GetBytes(body, "data"); d.IsArray() && len(d.Array()) == 0 {
			c.fail("json", "data", "at least one image", "[]",
				"a success response carries an empty data list (spec 2.2: clients must treat it as failure)")
		}
	}
}

// validJSON reports whether the body parses; a reason is recorded otherwise.
func (c *checker) validJSON(body []byte, where string) bool {
	if json.Valid(body) {
		return true
	}
	c.fail("json", where, "a JSON document", string(body), "body is not valid JSON")
	return false
}

// usedNames reports whether a "model used" (2.3, 2.4) names the model
// requested: the id sent in any spelling of it (modelid.Same), or the
// spec's model in the gateway's words (modelid.Names: gpt-5.5-2026-01-01
// for gen-5.5), as an alias given with --model-map is answered with the
// model it stands for.
func (c *checker) usedNames(got string) bool {
	if modelid.Same(c.model, got) {
		return true
	}
	_, ok := modelid.Names(c.spec, got)
	return ok && c.spec != ""
}
