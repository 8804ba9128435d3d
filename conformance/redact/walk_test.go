package redact

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gwconform/gwconform/conformance/results"
)

// plant sets every string reachable from v (through structs, pointers,
// slices of one element, maps of one entry) to secret, and reports the
// paths it set.
func plant(v reflect.Value, secret, path string, paths *[]string) {
	switch v.Kind() {
	case reflect.String:
		if v.CanSet() {
			v.SetString(secret)
			*paths = append(*paths, path)
		}
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		plant(v.Elem(), secret, path, paths)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				plant(v.Field(i), secret, path+"."+v.Type().Field(i).Name, paths)
			}
		}
	case reflect.Slice:
		if v.Len() == 0 {
			v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		}
		for i := range v.Len() {
			plant(v.Index(i), secret, path+"[]", paths)
		}
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		plant(k, secret, path+"{key}", paths)
		plant(e, secret, path+"{}", paths)
		m.SetMapIndex(k, e)
		v.Set(m)
	}
}

// A secret planted in every text field of a result is found in no output:
// the runner's exact-value pass and the report's pattern pass walk the same
// fields (Walk), and that is every text field a result has.
func TestWalkReachesEveryTextField(t *testing.T) {
	t.Parallel()
	const secret = "sk-live-planted-0123456789abcdef"
	for _, pass := range []struct {
		name string
		run  func(*results.Result)
	}{
		{"exact values (the runner)", func(r *results.Result) { Result(r, []string{secret}) }},
		{"credential patterns (the report)", func(r *results.Result) { Walk(r, Credentials) }},
	} {
		t.Run(pass.name, func(t *testing.T) {
			var r results.Result
			var paths []string
			plant(reflect.ValueOf(&r).Elem(), secret, "Result", &paths)
			require.Greater(t, len(paths), 40, "the plant reached the result's text fields")
			pass.run(&r)
			vocabulary(&r)
			out, err := json.Marshal(r)
			require.NoError(t, err)
			assert.NotContains(t, string(out), secret[8:], "a planted secret survived: %s", leaks(r, secret[8:]))
		})
	}
}

// vocabulary resets the fields that hold a word of the suite's vocabulary,
// not text: a tier, a status, a key kind, a date, an image's format, hash
// and thumbnail (a data URL the report accepts only by its pattern).
func vocabulary(r *results.Result) {
	r.Tier, r.Status, r.FirstStatus, r.Key = "", "", "", ""
	for i := range r.Images {
		r.Images[i].Format, r.Images[i].SHA256, r.Images[i].Thumb = "", "", ""
	}
	if r.Waiver != nil {
		r.Waiver.Expires, r.Waiver.State = "", ""
	}
	if r.Transcript != nil {
		for i := range r.Transcript.Rounds {
			r.Transcript.Rounds[i].Key = ""
		}
	}
}

// leaks names the fields still holding the secret, for the failure message.
func leaks(r results.Result, secret string) string {
	var out []string
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.String:
			if strings.Contains(v.String(), secret) {
				out = append(out, path)
			}
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem(), path)
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i), path+"."+v.Type().Field(i).Name)
				}
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i), path+"[]")
			}
		case reflect.Map:
			for _, k := range v.MapKeys() {
				walk(k, path+"{key}")
				walk(v.MapIndex(k), path+"{}")
			}
		}
	}
	walk(reflect.ValueOf(r), "Result")
	return strings.Join(out, ", ")
}
