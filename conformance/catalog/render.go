package catalog

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"path"
	"strings"
	"text/template"
)

// Env is what templates may take from outside the catalog.
type Env struct {
	// PublicImageURL is GWCONFORM_PUBLIC_IMAGE_URL, an HTTPS PNG.
	PublicImageURL string
	// ModelName gives a spec id the gateway's name for it; nil sends the
	// spec's ids. It names the model under test ({{ .Model }}) and a
	// literal id in the body's model member (a retired id).
	ModelName func(id string) string
}

// name is the gateway's name for id.
func (e Env) name(id string) string {
	if e.ModelName == nil {
		return id
	}
	return e.ModelName(id)
}

// Rendered is a case's request for one model, ready to send. The engine adds
// Authorization.
type Rendered struct {
	Method string
	Path   string
	// Header holds Content-Type for a body and the case's headers.
	Header http.Header
	Body   []byte
}

// Boundary is the fixed multipart boundary: the same case renders the same
// bytes on every run, so bodies can be compared and hashed.
const Boundary = "gwconform-7f3a9c2e5b1d4086"

// mediaTypes maps fixture extensions to media types. A fixed table, unlike
// mime.TypeByExtension, does not depend on the machine's mime.types.
var mediaTypes = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
	".webp": "image/webp", ".gif": "image/gif",
}

func mediaType(name string) string {
	if t, ok := mediaTypes[strings.ToLower(path.Ext(name))]; ok {
		return t
	}
	return "application/octet-stream"
}

type fixtureData struct {
	raw []byte
	b64 string
}

// fixture reads (once) a fixture file.
func (c *Catalog) fixture(name string) (*fixtureData, error) {
	if v, ok := c.fixtures.Load(name); ok {
		return v.(*fixtureData), nil
	}
	if !fs.ValidPath(name) || c.Fixtures == nil {
		return nil, fmt.Errorf("fixture %q not found", name)
	}
	raw, err := fs.ReadFile(c.Fixtures, name)
	if err != nil {
		return nil, fmt.Errorf("fixture %q: %w", name, err)
	}
	v, _ := c.fixtures.LoadOrStore(name, &fixtureData{raw: raw, b64: base64.StdEncoding.EncodeToString(raw)})
	return v.(*fixtureData), nil
}

// funcs binds the template functions to this catalog's fixtures and env.
func (c *Catalog) funcs(env Env) template.FuncMap {
	return template.FuncMap{
		FuncDataURL: func(name string) (string, error) {
			f, err := c.fixture(name)
			if err != nil {
				return "", err
			}
			return "data:" + mediaType(name) + ";base64," + f.b64, nil
		},
		FuncBase64: func(name string) (string, error) {
			f, err := c.fixture(name)
			if err != nil {
				return "", err
			}
			return f.b64, nil
		},
		FuncPublicImageURL: func() (string, error) {
			if env.PublicImageURL == "" {
				return "", errors.New("no public image URL configured (GWCONFORM_PUBLIC_IMAGE_URL)")
			}
			return env.PublicImageURL, nil
		},
	}
}

type renderer struct {
	fns  template.FuncMap
	data TemplateData
}

func (r *renderer) str(s string) (string, error) {
	if !isTemplate(s) {
		return s, nil
	}
	t, err := parseTemplate(s, r.fns)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := t.Execute(&b, r.data); err != nil {
		return "", errors.New(cleanTemplateErr(err))
	}
	return b.String(), nil
}

// value renders every string of a decoded JSON value, copying it.
func (r *renderer) value(v any) (any, error) {
	switch t := v.(type) {
	case string:
		return r.str(t)
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			x, err := r.value(e)
			if err != nil {
				return nil, err
			}
			out[i] = x
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			x, err := r.value(e)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = x
		}
		return out, nil
	}
	return v, nil
}

// Render builds the request of cs for model, under the gateway's names
// (Env.ModelName). It is safe for concurrent use.
func (c *Catalog) Render(cs *Case, model string, env Env) (*Rendered, error) {
	r := &renderer{fns: c.funcs(env), data: TemplateData{Model: env.name(model)}}
	fail := func(what string, err error) (*Rendered, error) {
		return nil, fmt.Errorf("case %s (%s): rendering %s: %w", cs.ID, cs.Pos, what, err)
	}
	req := &cs.Request
	out := &Rendered{Method: req.Method, Header: http.Header{}}
	var err error
	if out.Path, err = r.str(req.Path); err != nil {
		return fail("path", err)
	}
	switch {
	case req.JSON != nil:
		v, err := r.value(req.JSON)
		if err != nil {
			return fail("json", err)
		}
		renameLiteralModel(v, req, env)
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // keep prompts readable in reports
		if err := enc.Encode(v); err != nil {
			return fail("json", err)
		}
		out.Body = bytes.TrimSuffix(b.Bytes(), []byte("\n"))
		out.Header.Set("Content-Type", "application/json")
	case req.Multipart != nil:
		body, err := c.multipart(r, req.Multipart, env)
		if err != nil {
			return fail("multipart", err)
		}
		out.Body = body
		out.Header.Set("Content-Type", "multipart/form-data; boundary="+Boundary)
	case req.Raw != "":
		s, err := r.str(req.Raw)
		if err != nil {
			return fail("raw", err)
		}
		out.Body = []byte(s)
		out.Header.Set("Content-Type", "application/json")
	}
	for k, v := range req.Headers {
		s, err := r.str(v)
		if err != nil {
			return fail("header "+k, err)
		}
		out.Header.Set(k, s)
	}
	return out, nil
}

// LiteralModel is the model id a case's JSON body names as written, not
// through {{ .Model }}: a retired or unknown id, sent as the gateway would
// spell it (Env.ModelName).
func (r *Request) LiteralModel() (string, bool) {
	in, _ := r.JSON.(map[string]any)
	lit, ok := in["model"].(string)
	return lit, ok && !isTemplate(lit)
}

// renameLiteralModel gives a literal id in the body's model member (not
// {{ .Model }}, which is named already) the gateway's name: a retired id
// is sent as the gateway would spell it.
func renameLiteralModel(rendered any, req *Request, env Env) {
	out, ok := rendered.(map[string]any)
	if lit, literal := req.LiteralModel(); ok && literal {
		out["model"] = env.name(lit)
	}
}

func (c *Catalog) multipart(r *renderer, fields []FormField, env Env) ([]byte, error) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	if err := w.SetBoundary(Boundary); err != nil {
		return nil, err
	}
	for _, f := range fields {
		if f.File != "" {
			fx, err := c.fixture(f.File)
			if err != nil {
				return nil, err
			}
			if bytes.Contains(fx.raw, []byte(Boundary)) {
				return nil, fmt.Errorf("fixture %q contains the multipart boundary", f.File)
			}
			h := textproto.MIMEHeader{}
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, f.Name, path.Base(f.File)))
			h.Set("Content-Type", mediaType(f.File))
			pw, err := w.CreatePart(h)
			if err != nil {
				return nil, err
			}
			pw.Write(fx.raw)
			continue
		}
		v, err := r.str(f.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		if f.Name == "model" && !isTemplate(f.Value) {
			v = env.name(v)
		}
		if err := w.WriteField(f.Name, v); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
