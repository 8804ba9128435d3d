package check

import (
	"fmt"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tidwall/gjson"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/modelid"
)

// checkMatchers applies the case's gjson path expectations to a body.
func (c *checker) checkMatchers(body []byte, ms map[string]catalog.Matcher) {
	paths := make([]string, 0, len(ms))
	for p := range ms {
		paths = append(paths, p)
	}
	sort.Strings(paths) // stable reason order
	for _, p := range paths {
		v := gjson.GetBytes(body, p)
		if p == catalog.PathText {
			v = generatedText(body)
		}
		c.checkMatcher(pathInWords(p), v, ms[p])
	}
}

// queryRE is a gjson query step, #(key=="value").
var queryRE = regexp.MustCompile(`#\((\w+)\s*==\s*"([^"]*)"\)`)

// pathInWords writes a gjson path as a reason shows it: a query step
// #(type=="message") as [type: message], so that no reason speaks the
// query language (output[type: message].content[type: output_text].text).
func pathInWords(path string) string {
	return strings.ReplaceAll(queryRE.ReplaceAllString(path, "[$1: $2]"), ".[", "[")
}

// checkMatcher applies one matcher: presence first, then the checks of a
// kind (model, unix_seconds), then each operator on the value.
func (c *checker) checkMatcher(path string, v gjson.Result, m catalog.Matcher) {
	// The generic operators name the spec rows the case cites for the field.
	fail := func(expected, actual, message string) {
		c.fail("json", path, expected, actual, "%s%s", message, c.cite(fieldOf(path)))
	}
	if m.Exists != nil {
		if v.Exists() != *m.Exists {
			fail(fmt.Sprintf("exists: %v", *m.Exists), show(v), "field presence differs")
		}
		if !*m.Exists {
			return
		}
	}
	if !v.Exists() {
		if !m.IfPresent {
			fail(describe(m), "absent", "field is missing")
		}
		return
	}
	if m.Model != "" {
		c.checkModel(path, v, m.Model)
	}
	if m.UnixSeconds != "" {
		c.checkUnixSeconds(path, v, m.UnixSeconds)
	}
	for _, op := range valueOperators {
		if op.set(m) && !op.holds(v, m) {
			fail(op.expected(m), v.Raw, op.message)
		}
	}
}

// valueOperator is one operator of a matcher on a present value.
type valueOperator struct {
	set      func(m catalog.Matcher) bool // the matcher uses it
	holds    func(v gjson.Result, m catalog.Matcher) bool
	expected func(m catalog.Matcher) string
	message  string
}

// valueOperators in the order their reasons are given.
var valueOperators = []valueOperator{
	{func(m catalog.Matcher) bool { return m.HasEquals },
		func(v gjson.Result, m catalog.Matcher) bool { return equalJSON(v, m.Equals) },
		func(m catalog.Matcher) string { return fmt.Sprintf("%v", m.Equals) }, "value differs"},
	{func(m catalog.Matcher) bool { return m.Type != "" },
		func(v gjson.Result, m catalog.Matcher) bool { return hasType(v, m.Type) },
		func(m catalog.Matcher) string { return "type " + m.Type }, "value has the wrong type"},
	{func(m catalog.Matcher) bool { return len(m.OneOf) > 0 },
		func(v gjson.Result, m catalog.Matcher) bool {
			return slices.ContainsFunc(m.OneOf, func(want any) bool { return equalJSON(v, want) })
		},
		func(m catalog.Matcher) string { return fmt.Sprintf("one of %v", m.OneOf) }, "value is not one of the allowed"},
	{func(m catalog.Matcher) bool { return m.Regex != "" },
		func(v gjson.Result, m catalog.Matcher) bool {
			return v.Type == gjson.String && compiled(m.Regex).MatchString(v.Str)
		},
		func(m catalog.Matcher) string { return "matches /" + m.Regex + "/" }, "value does not match"},
	{func(m catalog.Matcher) bool { return m.Min != nil },
		func(v gjson.Result, m catalog.Matcher) bool { return v.Type == gjson.Number && v.Num >= *m.Min },
		func(m catalog.Matcher) string { return fmt.Sprintf(">= %v", *m.Min) }, "value is below the minimum"},
	{func(m catalog.Matcher) bool { return m.Max != nil },
		func(v gjson.Result, m catalog.Matcher) bool { return v.Type == gjson.Number && v.Num <= *m.Max },
		func(m catalog.Matcher) string { return fmt.Sprintf("<= %v", *m.Max) }, "value is above the maximum"},
	{func(m catalog.Matcher) bool { return m.NotEmpty },
		func(v gjson.Result, m catalog.Matcher) bool { return !isEmpty(v) },
		func(m catalog.Matcher) string { return "not empty" }, "value is empty"},
	{func(m catalog.Matcher) bool { return m.Contains != "" },
		func(v gjson.Result, m catalog.Matcher) bool { return containsFold(v.String(), m.Contains) },
		func(m catalog.Matcher) string { return "contains " + strconv.Quote(m.Contains) }, "value does not contain the text"},
}

func show(v gjson.Result) string {
	if !v.Exists() {
		return "absent"
	}
	return v.Raw
}

func describe(m catalog.Matcher) string {
	if m.HasEquals {
		return fmt.Sprintf("%v", m.Equals)
	}
	if m.Type != "" {
		return "type " + m.Type
	}
	return "present"
}

// equalJSON compares a gjson value with a YAML-decoded one. Numbers compare
// by value (YAML gives uint64/int64/float64), so 1 equals 1.0.
func equalJSON(v gjson.Result, want any) bool {
	switch w := want.(type) {
	case nil:
		return v.Type == gjson.Null
	case bool:
		return (v.Type == gjson.True || v.Type == gjson.False) && v.Bool() == w
	case string:
		return v.Type == gjson.String && v.Str == w
	case int, int64, uint64, uint, int32, float64, float32:
		f, _ := strconv.ParseFloat(fmt.Sprint(w), 64)
		return v.Type == gjson.Number && math.Abs(v.Num-f) < 1e-9
	default:
		return reflect.DeepEqual(v.Value(), want)
	}
}

func hasType(v gjson.Result, t string) bool {
	switch t {
	case "string":
		return v.Type == gjson.String
	case "number":
		return v.Type == gjson.Number
	case "integer":
		return v.Type == gjson.Number && v.Num == math.Trunc(v.Num)
	case "boolean":
		return v.Type == gjson.True || v.Type == gjson.False
	case "array":
		return v.IsArray()
	case "object":
		return v.IsObject()
	case "null":
		return v.Type == gjson.Null
	}
	return false
}

func isEmpty(v gjson.Result) bool {
	switch {
	case v.IsArray():
		return len(v.Array()) == 0
	case v.IsObject():
		return len(v.Map()) == 0
	case v.Type == gjson.String:
		return v.Str == ""
	case v.Type == gjson.Null:
		return true
	}
	return false
}

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), strings.ToLower(sub))
}

// regexps keeps each matcher pattern compiled once per process: the same
// case runs for every model, shard and retry.
var regexps sync.Map // pattern → *regexp.Regexp

// compiled returns the pattern's regexp. The loader has compiled every
// pattern already, so MustCompile cannot fail here.
func compiled(pattern string) *regexp.Regexp {
	if re, ok := regexps.Load(pattern); ok {
		return re.(*regexp.Regexp)
	}
	re := regexp.MustCompile(pattern)
	regexps.Store(pattern, re)
	return re
}

// checkModel: spec 2.3 and 2.4 call the field "model used"; the verified
// reading is the same model in any spelling of it (modelid.Same); the
// strict one, the id exactly as requested.
func (c *checker) checkModel(path string, v gjson.Result, mode string) {
	ok := v.Type == gjson.String && v.Str == c.model
	if !ok && mode == catalog.ModelRequested && v.Type == gjson.String {
		ok = c.usedNames(v.Str)
	}
	if ok {
		return
	}
	want := c.model
	if mode == catalog.ModelRequested {
		want += " (" + modelid.Spellings + ")"
	}
	c.fail("json", path, want, v.Raw, "the model used is not the model requested (spec 2.3, 2.4: model used)")
}

// Bounds of a plausible Unix time in seconds: after 2001-09-09 (1e9 s: a
// zero or a small counter is no time) and, read as seconds, a value in
// milliseconds lands tens of thousands of years ahead, past the bound of
// the exchange plus a day.
const (
	minUnixSeconds = 1_000_000_000
	unixSlack      = 24 * time.Hour
)

// checkUnixSeconds: spec 2.2, "created: integer, Unix time in seconds".
func (c *checker) checkUnixSeconds(path string, v gjson.Result, window string) {
	if v.Type != gjson.Number || v.Num != math.Trunc(v.Num) {
		c.fail("json", path, "an integer Unix time in seconds", v.Raw, "not an integer (spec 2.2: Unix time in seconds)")
		return
	}
	got := time.Unix(v.Int(), 0)
	latest := c.received.Add(unixSlack)
	switch {
	case v.Int() < minUnixSeconds:
		c.fail("json", path, "a Unix time in seconds", v.Raw, "not a plausible Unix time (spec 2.2: Unix time in seconds)")
		return
	case got.After(latest):
		c.fail("json", path, "seconds, no later than "+latest.UTC().Format(time.RFC3339), v.Raw,
			"later than the answer plus a day: milliseconds, or a clock far off (spec 2.2: Unix time in seconds)")
		return
	}
	if window == catalog.UnixSecondsPlausible {
		return
	}
	w, _ := time.ParseDuration(window) // the loader validated it
	from, to := c.sent.Add(-w).Truncate(time.Second), c.received.Add(w)
	if got.Before(from) || got.After(to) {
		c.fail("json", path, fmt.Sprintf("within %s of the exchange (%s .. %s)", w, from.UTC().Format(time.RFC3339), to.UTC().Format(time.RFC3339)),
			got.UTC().Format(time.RFC3339), "created is not the time of this exchange (spec 2.2)")
	}
}

// checkListsDiffer: spec 2.1, "the list differs per key". It compares the
// set of ids of this list with each other key's list, which the execute
// stage fetched (Runner.otherLists).
func (c *checker) checkListsDiffer(body []byte, others map[catalog.KeyKind][]string) {
	mine := idSet(gjson.GetBytes(body, "data.#.id").Array())
	for _, kind := range catalog.KeyKinds {
		ids, ok := others[kind]
		if !ok {
			continue
		}
		theirs := map[string]bool{}
		for _, id := range ids {
			theirs[id] = true
		}
		if maps.Equal(mine, theirs) {
			c.fail("json", "data", "a list that differs from the "+string(kind)+" key's", fmt.Sprintf("the same %d models", len(mine)),
				"the list is the same for two keys (spec 2.1: the list differs per key)")
		}
	}
}

// checkListed: the list names the model under test (spec 2.1: "An image
// key lists gen-image-2, ..."; section 1: the alternative key's list), by
// the id the requests send for it (c.model: the gateway's, under a
// --model-map or a resolved name; spec is the catalog's).
func (c *checker) checkListed(body []byte, key catalog.KeyKind, spec string) {
	if idSet(gjson.GetBytes(body, "data.#.id").Array())[c.model] {
		return
	}
	name := c.model
	if spec != "" && spec != c.model {
		name += " (" + spec + " in the spec)"
	}
	c.fail("json", "data", c.model+" among data[].id", "absent",
		"%s is not listed for the %s key (spec 2.1: the list of the models visible to the calling key)", name, key)
}

// checkNamed: the list names a spec model by some id, as checkListed asks
// of the id a run sends.
func (c *checker) checkNamed(body []byte, key catalog.KeyKind, spec string) {
	for _, id := range gjson.GetBytes(body, "data.#.id").Array() {
		if _, ok := modelid.Names(spec, id.String()); ok || modelid.Same(spec, id.String()) {
			return
		}
	}
	c.fail("json", "data", spec+" (by any id naming it) among data[].id", "absent",
		"%s is not listed for the %s key (spec 2.1: the list of the models visible to the calling key)", spec, key)
}

func idSet(vs []gjson.Result) map[string]bool {
	out := map[string]bool{}
	for _, v := range vs {
		out[v.String()] = true
	}
	return out
}
