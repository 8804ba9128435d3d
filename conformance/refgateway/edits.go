package refgateway

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// maxFormFieldSize bounds a text field of a multipart form.
const maxFormFieldSize = 1 << 20

// edits answers POST /v1/images/edits (4.5): a JSON body or a multipart
// form, which are alternatives (rule 3), answered with the image result of
// 2.2 or, with stream true, the image stream of 6.1 (image_edit.* events).
func (c *call) edits() {
	ct, params, err := mime.ParseMediaType(c.r.Header.Get("Content-Type"))
	if c.r.Header.Get("Content-Type") == "" {
		ct, err = "application/json", nil
	}
	if err != nil {
		c.fail(http.StatusBadRequest, "bad Content-Type: "+err.Error())
		return
	}
	switch ct {
	case "application/json":
		var req imageRequest
		if !c.readJSON(&req) {
			return
		}
		c.runImages(&req, nil, true)
	case "multipart/form-data":
		if params["boundary"] == "" {
			c.fail(http.StatusBadRequest, "multipart body without a boundary")
			return
		}
		if c.r.ContentLength > c.g.maxBody {
			c.fail(http.StatusRequestEntityTooLarge, fmt.Sprintf("request body of %d bytes exceeds the limit of %d bytes", c.r.ContentLength, c.g.maxBody))
			return
		}
		c.r.Body = http.MaxBytesReader(c.w, c.r.Body, c.g.maxBody)
		req, files, err := readMultipart(multipart.NewReader(c.r.Body, params["boundary"]))
		if err != nil {
			c.answerErr(err)
			return
		}
		c.runImages(req, files, true)
	default:
		c.fail(http.StatusBadRequest, fmt.Sprintf("unsupported Content-Type %q: use application/json or multipart/form-data", ct))
	}
}

// formFiles are the file parts of a multipart edit.
type formFiles struct {
	images [][]byte
	fields []string // the form name of each image: image or image[]
	mask   []byte
	hasMsk bool
}

// readMultipart reads an edit form part by part (never buffering more than
// the body limit, which the caller's MaxBytesReader enforces).
func readMultipart(mr *multipart.Reader) (*imageRequest, *formFiles, error) {
	req := &imageRequest{}
	files := &formFiles{}
	for {
		p, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, wrapMultipart(err)
		}
		if err := readPart(p, req, files); err != nil {
			return nil, nil, err
		}
	}
	return req, files, nil
}

// readPart reads one part of an edit form: an image file into files, a
// text field into req.
func readPart(p *multipart.Part, req *imageRequest, files *formFiles) error {
	name := p.FormName()
	switch name {
	case "image", "image[]", "mask":
		return files.add(name, p)
	}
	b, err := io.ReadAll(io.LimitReader(p, maxFormFieldSize+1))
	if err != nil {
		return wrapMultipart(err)
	}
	if len(b) > maxFormFieldSize {
		return bad(name, "form field %q is too long", name)
	}
	return req.setFormField(name, string(b))
}

// add reads the file of form field name: a reference image (image or
// image[]), or the mask, of which there is at most one.
func (f *formFiles) add(name string, p io.Reader) error {
	b, err := io.ReadAll(p)
	if err != nil {
		return wrapMultipart(err)
	}
	if name != "mask" {
		f.images = append(f.images, b)
		f.fields = append(f.fields, name)
		return nil
	}
	if f.hasMsk {
		return bad("mask", "more than one mask field")
	}
	f.mask, f.hasMsk = b, true
	return nil
}

// setFormField sets the request parameter that text field name of an edit
// form carries, value v. Fields the form does not define are ignored.
func (req *imageRequest) setFormField(name, v string) error {
	if dst := req.stringField(name); dst != nil {
		*dst = &v
		return nil
	}
	if dst := req.intField(name); dst != nil {
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return bad(name, "%s must be an integer, got %q", name, v)
		}
		*dst = &i
		return nil
	}
	switch name {
	case "stream":
		bv, err := strconv.ParseBool(strings.TrimSpace(v))
		req.Stream = &bv
		if err != nil {
			return bad(name, "stream must be true or false, got %q", v)
		}
	case "images[][file_id]", "mask[file_id]", "file_id":
		return bad(name, "file_id references are not supported: send the image itself")
	}
	return nil
}

// stringField is the string parameter form field name sets; nil when it
// sets none.
func (req *imageRequest) stringField(name string) **string {
	switch name {
	case "model":
		return &req.Model
	case "prompt":
		return &req.Prompt
	case "size":
		return &req.Size
	case "quality":
		return &req.Quality
	case "background":
		return &req.Background
	case "output_format":
		return &req.OutputFormat
	case "response_format":
		return &req.ResponseFormat
	}
	return nil
}

// intField is the integer parameter form field name sets; nil when it sets
// none.
func (req *imageRequest) intField(name string) **int {
	switch name {
	case "n":
		return &req.N
	case "output_compression":
		return &req.OutputCompression
	case "partial_images":
		return &req.PartialImages
	}
	return nil
}

func wrapMultipart(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return err
	}
	return bad("", "malformed multipart body: %v", err)
}

// editInputs are the reference images and the mask of an edit, not yet
// decoded.
type editInputs struct {
	refs     [][]byte
	mask     []byte
	hasMask  bool
	fileRefs int // references by file_id alone that a fault let through
}

// readEditInputs decodes the reference images and the mask of an edit:
// at least one reference (rule 1), no file_id (rule 2), and several
// references or a mask for the 2.5 models only (rule 5).
func (c *call) readEditInputs(job *imageJob, req *imageRequest, files *formFiles) error {
	in, err := c.gatherEditInputs(req, files)
	if err != nil {
		return err
	}
	if len(in.refs) == 0 {
		if in.fileRefs == 0 {
			if err := c.violation(ruleReferenceRequired, "image", "an edit needs at least one reference image (image, image[] or images[].image_url)"); err != nil {
				return err
			}
		}
		in.hasMask = false // let through: nothing to mask, served like a generation
	}
	img2 := job.model.Spec == modelImage2
	if img2 && len(in.refs) > 1 {
		return bad("image", "%s takes one reference image", job.model.ID)
	}
	if img2 && in.hasMask {
		return bad("mask", "%s takes no mask", job.model.ID)
	}
	return job.decodeInputs(in)
}

// gatherEditInputs collects the reference and mask bytes of an edit: the
// files of a multipart form, or what the image_url references of a JSON
// body give.
func (c *call) gatherEditInputs(req *imageRequest, files *formFiles) (editInputs, error) {
	if files != nil {
		if len(req.Images) > 0 || req.Mask != nil {
			return editInputs{}, bad("images", "multipart edits take image files, not images[].image_url")
		}
		return editInputs{refs: files.images, mask: files.mask, hasMask: files.hasMsk}, nil
	}
	var in editInputs
	for i, ref := range req.Images {
		if err := c.addReference(&in, i, ref); err != nil {
			return editInputs{}, err
		}
	}
	if req.Mask != nil {
		if err := c.addMask(&in, *req.Mask); err != nil {
			return editInputs{}, err
		}
	}
	return in, nil
}

// hasURL reports whether r has a non-empty image_url.
func (r imageRef) hasURL() bool { return r.ImageURL != nil && *r.ImageURL != "" }

// addReference reads reference images[i] of a JSON edit from its
// image_url.
func (c *call) addReference(in *editInputs, i int, ref imageRef) error {
	if ref.FileID != nil {
		r := ruleNoFileID
		if !ref.hasURL() {
			r = ruleFileIDAlone
		}
		if err := c.violation(r, fmt.Sprintf("images[%d].file_id", i), "images[].file_id is not supported: send image_url"); err != nil {
			return err
		}
		if !ref.hasURL() {
			// Let through: taken as a stored file, which this gateway
			// does not keep, so the edit is served without it (as a
			// generation).
			in.fileRefs++
			return nil
		}
		// Let through beside an image_url: the file_id is ignored.
	}
	if !ref.hasURL() {
		return bad(fmt.Sprintf("images[%d].image_url", i), "images[%d].image_url is required", i)
	}
	b, err := c.fetchImageURL(*ref.ImageURL, fmt.Sprintf("images[%d].image_url", i))
	if err != nil {
		return err
	}
	in.refs = append(in.refs, b)
	return nil
}

// addMask reads the mask of a JSON edit from its image_url.
func (c *call) addMask(in *editInputs, mk imageRef) error {
	if mk.FileID != nil {
		if err := c.violation(ruleNoFileID, "mask.file_id", "mask.file_id is not supported: send mask.image_url"); err != nil {
			return err
		}
		// Let through: the file_id is ignored; a mask by file_id alone is
		// left out.
	}
	switch {
	case mk.hasURL():
		b, err := c.fetchImageURL(*mk.ImageURL, "mask.image_url")
		if err != nil {
			return err
		}
		in.mask, in.hasMask = b, true
	case mk.FileID == nil:
		return bad("mask.image_url", "mask.image_url is required")
	}
	return nil
}

// decodeInputs decodes the references and the mask of in into j; the mask
// must have the size of the first reference.
func (j *imageJob) decodeInputs(in editInputs) error {
	for i, b := range in.refs {
		img, err := decodeInput(b)
		if err != nil {
			return bad("image", "reference image %d: %v", i, err)
		}
		j.refs = append(j.refs, inputImage{img: img, raw: b})
	}
	if !in.hasMask {
		return nil
	}
	img, err := decodeInput(in.mask)
	if err != nil {
		return bad("mask", "mask: %v", err)
	}
	if img.Bounds().Size() != j.refs[0].img.Bounds().Size() {
		return bad("mask", "mask is %v but the reference image is %v: they must have the same dimensions",
			img.Bounds().Size(), j.refs[0].img.Bounds().Size())
	}
	j.mask = &inputImage{img: img, raw: in.mask}
	return nil
}

// fetchImageURL reads a data URL or fetches an HTTPS URL.
func (c *call) fetchImageURL(s, param string) ([]byte, error) {
	if rest, ok := strings.CutPrefix(s, "data:"); ok {
		return decodeDataURL(rest, param)
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme != "https" || u.Host == "" {
		return nil, bad(param, "%s must be a data URL or an https URL", param)
	}
	return c.fetchHTTPS(u, param)
}

// decodeDataURL decodes the base64 data of a data URL, rest being what
// follows "data:". Padding may be left out.
func decodeDataURL(rest, param string) ([]byte, error) {
	meta, data, ok := strings.Cut(rest, ",")
	if !ok || !strings.HasSuffix(meta, ";base64") {
		return nil, bad(param, "%s: a data URL must have the form data:<media_type>;base64,<data>", param)
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		if b, err = base64.RawStdEncoding.DecodeString(data); err != nil {
			return nil, bad(param, "%s: invalid base64 data", param)
		}
	}
	return b, nil
}

// fetchHTTPS fetches the image at u, within a minute and the body limit.
func (c *call) fetchHTTPS(u *url.URL, param string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(c.r.Context(), 60*time.Second)
	defer cancel()
	rq, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, bad(param, "%s: %v", param, err)
	}
	resp, err := c.g.client.Do(rq)
	if err != nil {
		return nil, bad(param, "%s: could not fetch the image: %v", param, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, bad(param, "%s: fetching the image gave HTTP %d", param, resp.StatusCode)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, c.g.maxBody+1))
	if err != nil {
		return nil, bad(param, "%s: could not read the image: %v", param, err)
	}
	if int64(len(b)) > c.g.maxBody {
		return nil, bad(param, "%s: the image is larger than %d bytes", param, c.g.maxBody)
	}
	return b, nil
}
