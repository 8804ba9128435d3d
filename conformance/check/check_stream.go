package check

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/modelid"
	"github.com/gwconform/gwconform/conformance/results"
	"github.com/gwconform/gwconform/conformance/sse"
	"github.com/gwconform/gwconform/conformance/streams"
	"github.com/gwconform/gwconform/conformance/vocab"
	"github.com/gwconform/gwconform/schemas"
)

// maxEventTypes bounds the event log kept in a result; a hostile stream of
// millions of events must not grow results.jsonl without bound.
const maxEventTypes = 200

// checkStream reads an event stream to its end, checking each event as it
// arrives (grammar and schema), then the stream as a whole.
func (c *checker) checkStream(body io.Reader, exp *catalog.SSEExpect, set *schemas.Set, o Limits, started time.Time, res *results.Result) {
	g, err := streams.New(exp.Protocol, previewsAllowed(exp), imagesWanted(exp))
	if err != nil { // the loader validated the protocol; this is a bug
		c.fail("sse", "", "", "", "%v", err)
		return
	}
	sc := &streamCheck{checker: c, exp: exp, set: set, limits: o, started: started, res: res}
	n, finish, readErr := streams.Run(sse.NewReader(body, o.MaxEventBytes), g, sc.event)
	res.Events = n
	if c.cut {
		return // the client ended it: how it would have ended is unknown
	}
	if readErr != nil && !errors.Is(readErr, sse.ErrIncomplete) && !errors.Is(readErr, sse.ErrTooLarge) {
		c.fail("transport", fmt.Sprintf("after event %d", n), "the stream to its end", readErr.Error(), "reading the stream failed")
	}
	c.addViolations(finish, exp.Strict)
	sc.whole(g)
}

// imagesWanted is how many final images an image stream must carry.
func imagesWanted(exp *catalog.SSEExpect) int {
	if exp.Images != nil && exp.Images.Count > 0 {
		return exp.Images.Count
	}
	return 1
}

// previewsAllowed is how many partial images an image stream may carry.
func previewsAllowed(exp *catalog.SSEExpect) int {
	if exp.MaxPreviews != nil {
		return *exp.MaxPreviews
	}
	return 0
}

// streamCheck is one stream being checked, event by event.
type streamCheck struct {
	*checker
	exp         *catalog.SSEExpect
	set         *schemas.Set
	limits      Limits
	started     time.Time
	res         *results.Result
	modelFailed bool // one reason for a substituted model is enough
}

// event checks one event as it arrives: the grammar's violations, its
// schema, its model (strict) and its image.
func (sc *streamCheck) event(n int, ev sse.Event, vs []streams.Violation) {
	res, exp := sc.res, sc.exp
	if n == 1 {
		res.FirstEventMS = time.Since(sc.started).Milliseconds()
	}
	typ := results.Truncate(streams.EventLabel(ev), 100)
	where := fmt.Sprintf("event %d (%s)", n, typ)
	if len(res.EventTypes) < maxEventTypes {
		res.EventTypes = append(res.EventTypes, typ)
	}
	sc.addViolations(vs, exp.Strict)
	if name := streams.SchemaFor(exp.Protocol, ev); name != "" {
		sc.checkSchema(sc.set, name, ev.Data, where)
	}
	if exp.Strict && !sc.modelFailed {
		sc.modelFailed = sc.checkStreamModel(where, streams.EventModel(exp.Protocol, ev))
	}
	if exp.Protocol.IsImage() && (strings.HasSuffix(typ, ".partial_image") || strings.HasSuffix(typ, ".completed")) {
		sc.eventImage(where, typ, ev)
	}
}

// eventImage decodes an image event's image. 6.1 shows no event field but
// type, b64_json and partial_image_index: the verified tier judges the
// decoded image against the request alone (previews, of which the spec
// states no size or format, only decode). Strict also holds an event's
// image to the size and output_format it states, as 2.2's fields describe
// the images of a JSON result.
func (sc *streamCheck) eventImage(where, typ string, ev sse.Event) {
	var want imageWant
	if sc.exp.Strict {
		want = imageWant{formatField: gjson.GetBytes(ev.Data, "output_format").Str, sizeField: gjson.GetBytes(ev.Data, "size").Str}
	}
	if strings.HasSuffix(typ, ".completed") {
		want.expect = sc.exp.Images
	}
	if info, ok := sc.checkImage(where, gjson.GetBytes(ev.Data, "b64_json"), want, sc.limits.Thumbnails); ok {
		sc.res.Images = append(sc.res.Images, info)
	}
}

// whole checks the stream as a whole: its stop reason and its text.
func (sc *streamCheck) whole(g streams.Grammar) {
	exp := sc.exp
	if e, ok := g.(streams.Ender); ok {
		if exp.StopReason != nil {
			sc.checkMatcher(e.StopPlace(), stopValue(e.StopReason()), *exp.StopReason)
		}
		if exp.FinishReason != nil {
			sc.checkMatcher(e.StopPlace(), stopValue(e.StopReason()), *exp.FinishReason)
		}
	}
	if exp.MinText == 0 {
		return
	}
	if n := utf8.RuneCountInString(g.Text()); n < exp.MinText {
		sc.fail("sse", "text", fmt.Sprintf("at least %d characters", exp.MinText), fmt.Sprintf("%d: %q", n, g.Text()), "the stream carried too little text")
	}
}

// checkStreamModel (strict): a stream's model (a chat chunk's model,
// message_start's message.model) is not shown in 6.2 and 6.3, but the
// official accumulators copy it into the result they assemble (openai-go's
// ChatCompletionAccumulator, anthropic-sdk-go's Message.Accumulate), so in
// the strict tier it must name the model requested, in any spelling the
// JSON checks accept for "model used" (2.3, 2.4). Absent or null is not
// judged. It reports whether it failed.
func (c *checker) checkStreamModel(where string, v gjson.Result) bool {
	if v.Type == gjson.Null || v.Type == gjson.String && c.usedNames(v.Str) {
		return false
	}
	c.fail("sse-strict", where+" model", c.model+" ("+modelid.Spellings+")", v.Raw,
		"the stream names another model than the one requested (the official accumulators copy it into the result as the model used, spec 2.3, 2.4)")
	return true
}

func (c *checker) addViolations(vs []streams.Violation, strict bool) {
	for _, v := range vs {
		if v.Strict && !strict {
			continue
		}
		where := "stream"
		if v.Event > 0 {
			where = fmt.Sprintf("event %d", v.Event)
		}
		check := "sse"
		if v.Strict {
			check = "sse-strict"
		}
		c.fail(check, where, v.Expected, v.Actual, "%s (%s)", v.Message, v.Rule)
	}
}

// checkSchema validates one JSON document against a named schema.
func (c *checker) checkSchema(set *schemas.Set, name string, doc []byte, where string) {
	vs, err := set.Validate(name, doc)
	if err != nil {
		c.fail("schema", where, "JSON matching schema "+name, string(doc), "%v", err)
		return
	}
	for _, v := range vs {
		at := v.Path
		if where != "" {
			at = where + " " + v.Path
		}
		actual := "absent"
		if !strings.HasPrefix(v.Message, "missing required property") {
			actual = show(gjson.GetBytes(doc, pointerToPath(v.Path)))
		}
		c.fail("schema", strings.TrimSpace(at), "schema "+name, actual, "%s", v.Message)
	}
}

// pointerToPath turns a JSON pointer (/choices/0/message) into a gjson
// path (choices.0.message).
func pointerToPath(p string) string {
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, part := range parts {
		part = strings.NewReplacer("~1", "/", "~0", "~").Replace(part)
		parts[i] = strings.NewReplacer(".", `\.`, "*", `\*`, "?", `\?`).Replace(part)
	}
	return strings.Join(parts, ".")
}

// mergeReasons drops a matcher's reason where a schema reason already
// names the same problem of the same field (a missing or mistyped field
// is one problem, however many checks see it).
func mergeReasons(rs []vocab.Reason) []vocab.Reason {
	schema := map[string]bool{} // gjson paths the schema found missing or wrong
	for _, r := range rs {
		if r.Check != "schema" || strings.Contains(r.Where, " ") {
			continue // a stream event's schema reason names its event first
		}
		path := pointerToPath(r.Where)
		if m := missingProperty.FindStringSubmatch(r.Message); m != nil {
			if path != "" {
				path += "."
			}
			path += m[1]
		}
		schema[path] = true
	}
	out := rs[:0:0]
	for _, r := range rs {
		if r.Check == "json" && schema[r.Where] && (strings.HasPrefix(r.Message, "field is missing") || strings.HasPrefix(r.Message, "value has the wrong type")) {
			continue
		}
		out = append(out, r)
	}
	return out
}

var missingProperty = regexp.MustCompile(`^missing required property "([^"]+)"`)

// stopValue presents a stream's stop reason to the JSON matchers: a string,
// or absent when the stream carried none.
func stopValue(s string) gjson.Result {
	if s == "" {
		return gjson.Result{}
	}
	return gjson.Parse(strconv.Quote(s))
}
