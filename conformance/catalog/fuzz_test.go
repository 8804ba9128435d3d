package catalog

import (
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"testing"
	"testing/fstest"
	"time"
)

var diagLine = regexp.MustCompile(`^cases/f\.yaml:[1-9][0-9]*:[1-9][0-9]*: \S`)

// FuzzLoad feeds arbitrary bytes to the loader as one case file. It must
// never panic, and every failure must be Diagnostics whose every line says
// file:line:col: message. Loaded cases must render for their models.
// Seeds: testdata/fuzz/FuzzLoad/ plus the files below.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(goodFile))
	f.Add([]byte(oneCase("      method: GET\n      path: /v1/models", "      status: 200")))
	f.Add([]byte("cases:\n  - &a {id: x}\n  - *a\n  - <<: *a\n"))
	f.Add([]byte(exploreFile))
	f.Add([]byte("explore:\n  - {id: e, feature: images.edit.explore, spec: s, requirement: r, why: w, key: image, models: [m],\n     request: {method: POST, path: /v1/images/edits, multipart: {image: \"@ref-a-1024.png\"}},\n     parameters: {n: [1, 2], stream: [false, true], partial_images: [omit, 1]},\n     constraints: [{if: {stream: false}, then: {partial_images: [omit]}}]}\n"))
	f.Add([]byte(defaultsFile))
	f.Add([]byte("defaults: {key: text, request: {model: '@x', method: PUT}}\ncases:\n  - {id: c, request: {omit: [model, model]}}\n"))
	fixtures := testFixtures()
	f.Fuzz(func(t *testing.T, data []byte) {
		// A hang is a bug too: fail with every goroutine's stack instead of
		// stalling the fuzzer (which then cannot name the input).
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				buf := make([]byte, 1<<20)
				panic(fmt.Sprintf("Load/Render hung on %q\n%s", data, buf[:runtime.Stack(buf, true)]))
			}
		}()
		// The schema check reads the same bytes: Diagnostics or nothing.
		if err := CheckSchema(fstest.MapFS{"f.yaml": {Data: data}}); err != nil {
			var ds Diagnostics
			if !errors.As(err, &ds) {
				t.Fatalf("schema error is %T, not Diagnostics: %v", err, err)
			}
			for _, d := range ds {
				if !diagLine.MatchString(d.String()) {
					t.Fatalf("schema diagnostic without file:line:col: %q", d.String())
				}
			}
		}
		cat, err := Load(fstest.MapFS{"f.yaml": {Data: data}}, fixtures, testSchemas)
		if err != nil {
			var ds Diagnostics
			if !errors.As(err, &ds) {
				t.Fatalf("error is %T, not Diagnostics: %v", err, err)
			}
			if len(ds) == 0 {
				t.Fatal("empty Diagnostics returned as an error")
			}
			for _, d := range ds {
				if !diagLine.MatchString(d.String()) {
					t.Fatalf("diagnostic without file:line:col: %q", d.String())
				}
			}
			return
		}
		for i := range cat.Cases {
			cs := &cat.Cases[i]
			for _, m := range cs.Models {
				// Errors are fine (e.g. a template calling printf wrongly);
				// panics are not.
				_, _ = cat.Render(cs, m, Env{PublicImageURL: "https://x.example/a.png"})
			}
		}
	})
}
