package conformance

import (
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/tidwall/gjson"

	"github.com/gwconform/gwconform/conformance/catalog"
)

// checkMatchers applies the case's gjson path expectations to a body.
func (c *checker) checkMatchers(body []byte, ms map[string]catalog.Matcher) {
	paths := make([]string, 0, len(ms))
	for p := range ms {
		paths = append(paths, p)
	}
	sort.Strings(paths) // stable reason order
	for _, p := range paths {
		c.checkMatcher(p, gjson.GetBytes(body, p), ms[p])
	}
}

func (c *checker) checkMatcher(path string, v gjson.Result, m catalog.Matcher) {
	if m.Exists != nil {
		if v.Exists() != *m.Exists {
			c.fail("json", path, fmt.Sprintf("exists: %v", *m.Exists), show(v), "field presence differs")
		}
		if !*m.Exists {
			return
		}
	}
	if !v.Exists() {
		c.fail("json", path, describe(m), "absent", "field is missing")
		return
	}
	if m.HasEquals && !equalJSON(v, m.Equals) {
		c.fail("json", path, fmt.Sprintf("%v", m.Equals), v.Raw, "value differs")
	}
	if m.Type != "" && !hasType(v, m.Type) {
		c.fail("json", path, "type "+m.Type, v.Raw, "value has the wrong type")
	}
	if len(m.OneOf) > 0 {
		found := false
		for _, want := range m.OneOf {
			if equalJSON(v, want) {
				found = true
				break
			}
		}
		if !found {
			c.fail("json", path, fmt.Sprintf("one of %v", m.OneOf), v.Raw, "value is not one of the allowed")
		}
	}
	if m.Regex != "" {
		re := compiled(m.Regex)
		if v.Type != gjson.String || !re.MatchString(v.Str) {
			c.fail("json", path, "matches /"+m.Regex+"/", v.Raw, "value does not match")
		}
	}
	if m.Min != nil && (v.Type != gjson.Number || v.Num < *m.Min) {
		c.fail("json", path, fmt.Sprintf(">= %v", *m.Min), v.Raw, "value is below the minimum")
	}
	if m.Max != nil && (v.Type != gjson.Number || v.Num > *m.Max) {
		c.fail("json", path, fmt.Sprintf("<= %v", *m.Max), v.Raw, "value is above the maximum")
	}
	if m.NotEmpty && isEmpty(v) {
		c.fail("json", path, "not empty", v.Raw, "value is empty")
	}
	if m.Contains != "" && !containsFold(v.String(), m.Contains) {
		c.fail("json", path, "contains "+strconv.Quote(m.Contains), v.Raw, "value does not contain the text")
	}
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
