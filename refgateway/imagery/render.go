// Package imagery synthesises deterministic pictures for the reference
// gateway and encodes/decodes them as png, jpeg and webp.
//
// The pictures carry no meaning; they only have to be (1) cheap to make at
// 1024²–1536×1024 under -race, (2) a pure function of the request so that
// tests can compare runs, (3) visibly different for different prompts and
// seeds, and (4) visibly derived from the reference images of an edit so a
// conformance test can tell an edit that ignored its input.
package imagery

import (
	"encoding/binary"
	"hash/fnv"
	"image"
	"image/color"
	"math"
)

// Scene describes one picture. Everything is deterministic: same Scene → same pixels.
type Scene struct {
	Prompt        string
	Seed          uint64
	Width, Height int
	// References are the input images of an edit. The edited region is a
	// blend of the (averaged) references and the synthesised picture, so the
	// output correlates with the reference pixels.
	References []image.Image
	// Mask marks the edit region: where its alpha is 0 the picture is
	// edited, elsewhere the first reference is kept unchanged. It is scaled
	// (nearest neighbour) to the output size. Ignored without References.
	Mask image.Image
	// Transparent gives a real alpha channel: an opaque round subject with an
	// anti-aliased edge on a fully transparent (alpha 0) background.
	Transparent bool
	// Preview is -1 for the final image, 0..3 for a streaming preview. A
	// preview is the same scene rendered at a coarser resolution (blocks of
	// 32, 16, 8, 4 pixels for 0..3) and scaled back up, so it has the right
	// size but is visibly rougher, and gets finer with each index.
	Preview int
}

// editWeight is the share (out of 256) of the reference in an edited pixel.
// Above one half so the output correlates clearly with the reference, below
// 256 so the synthesised picture (and thus the prompt) still shows.
const editWeight = 160

// Render draws the scene. It never fails: a non-positive size gives an empty
// image, a Preview outside 0..3 is clamped to the nearest preview level.
func Render(s Scene) *image.NRGBA {
	w, h := s.Width, s.Height
	if w <= 0 || h <= 0 {
		return image.NewNRGBA(image.Rect(0, 0, 0, 0))
	}
	if s.Preview >= 0 {
		block := 32 >> min(s.Preview, 3)
		small := s
		small.Preview = -1
		small.Width = (w + block - 1) / block
		small.Height = (h + block - 1) / block
		// Rendering small and scaling up is both the cheapest way to make a
		// preview and what makes it look coarse.
		return resample(Render(small), w, h)
	}

	p := newParams(s.Prompt, s.Seed, w, h)
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	p.paintBackground(img)
	for i := range p.discs {
		p.discs[i].paint(img)
	}
	if s.Transparent {
		p.cutSubject(img)
	}
	if len(s.References) > 0 {
		applyEdit(img, s.References, s.Mask)
	}
	return img
}

// rng is splitmix64: tiny, fast, and fully specified, so the parameters
// derived from a prompt do not depend on math/rand's algorithm choices.
type rng struct{ state uint64 }

func (r *rng) next() uint64 {
	r.state += 0x9e3779b97f4a7c15
	z := r.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// float returns a value in [lo, hi).
func (r *rng) float(lo, hi float64) float64 {
	return lo + (hi-lo)*float64(r.next()>>11)/(1<<53)
}

// hue returns a saturated colour for hue h in [0,1) (HSV with S=0.75, V=0.95).
func hue(h float64) [3]int32 {
	h = h - math.Floor(h)
	const v, s = 0.95, 0.75
	sector := h * 6
	i := int(sector)
	f := sector - float64(i)
	p, q, t := v*(1-s), v*(1-s*f), v*(1-s*(1-f))
	var r, g, b float64
	switch i % 6 {
	case 0:
		r, g, b = v, t, p
	case 1:
		r, g, b = q, v, p
	case 2:
		r, g, b = p, v, t
	case 3:
		r, g, b = p, q, v
	case 4:
		r, g, b = t, p, v
	default:
		r, g, b = v, p, q
	}
	return [3]int32{int32(r*255 + 0.5), int32(g*255 + 0.5), int32(b*255 + 0.5)}
}

type disc struct {
	// Coordinates are doubled (2x+1 is a pixel centre) so that circle tests
	// stay in integers; radii are in the same doubled unit.
	cx2, cy2   int64
	in2, out2  int64   // squared inner/outer radius of the anti-aliased band
	rOut, band float64 // outer radius and band width, doubled units
	col        [3]int32
	opacity    int32 // 0..256
}

type params struct {
	w, h int
	// Background gradient: t = gx*x + gy*y + g0 in 16.16 fixed point, 0..1<<16.
	gx, gy, g0 int64
	c0, c1     [3]int32
	// Stripes: lighten where ((sx*x + sy*y) >> 16) is odd.
	sx, sy  int64
	stripeK int32 // 0..256 lightening strength
	discs   [5]disc
	subject disc // Transparent: the opaque region
}

// newParams derives every free parameter from an FNV-1a hash of the prompt
// and the seed. Geometry is expressed relative to the image size so that a
// preview (rendered small) is a scaled version of the final image.
func newParams(prompt string, seed uint64, w, h int) *params {
	hs := fnv.New64a()
	hs.Write([]byte(prompt))
	var sb [9]byte // 0 separator, then the seed: "ab"+seed ≠ "a"+"b…"
	binary.LittleEndian.PutUint64(sb[1:], seed)
	hs.Write(sb[:])
	r := &rng{state: hs.Sum64()}

	p := &params{w: w, h: h}
	fw, fh := float64(w), float64(h)
	minDim := math.Min(fw, fh)

	h0 := r.float(0, 1)
	p.c0 = hue(h0)
	p.c1 = hue(h0 + r.float(0.25, 0.75))

	// Gradient along direction θ across the normalised unit square.
	theta := r.float(0, 2*math.Pi)
	cs, sn := math.Cos(theta), math.Sin(theta)
	norm := math.Abs(cs) + math.Abs(sn) // projection range of the square is ±norm/2
	// t(x,y) = 0.5 + ((x+0.5)/w - 0.5)*cs/norm + ((y+0.5)/h - 0.5)*sn/norm
	const one = 1 << 16
	ax, ay := cs/norm/fw, sn/norm/fh
	p.gx = int64(math.Round(ax * one))
	p.gy = int64(math.Round(ay * one))
	p.g0 = int64(math.Round((0.5 + (0.5/fw-0.5)*cs/norm + (0.5/fh-0.5)*sn/norm) * one))

	phi := r.float(0, 2*math.Pi)
	period := r.float(0.03, 0.09) * math.Max(fw, fh)
	p.sx = int64(math.Round(math.Cos(phi) / period * one))
	p.sy = int64(math.Round(math.Sin(phi) / period * one))
	p.stripeK = int32(r.float(30, 70))

	// Anti-aliasing band: about 1.5 px at full size, never below 1 px.
	aa := math.Max(2, 3*minDim/1024) // doubled units
	for i := range p.discs {
		cx := r.float(0.1, 0.9) * fw
		cy := r.float(0.1, 0.9) * fh
		rad := r.float(0.06, 0.2) * minDim
		p.discs[i] = makeDisc(cx, cy, rad, aa, hue(r.float(0, 1)), int32(r.float(140, 220)))
	}
	p.subject = makeDisc(fw/2, fh/2, 0.36*minDim, aa, [3]int32{}, 256)
	return p
}

func makeDisc(cx, cy, rad, aa float64, col [3]int32, opacity int32) disc {
	rOut := 2*rad + aa/2
	rIn := math.Max(0, 2*rad-aa/2)
	return disc{
		cx2: int64(math.Round(2 * cx)), cy2: int64(math.Round(2 * cy)),
		in2: int64(rIn * rIn), out2: int64(math.Ceil(rOut * rOut)),
		rOut: rOut, band: rOut - rIn,
		col: col, opacity: opacity,
	}
}

// coverage returns how much of the pixel (x,y) the disc covers, 0..256.
func (d *disc) coverage(x, y int) int32 {
	dx := int64(2*x+1) - d.cx2
	dy := int64(2*y+1) - d.cy2
	d2 := dx*dx + dy*dy
	switch {
	case d2 <= d.in2:
		return 256
	case d2 >= d.out2:
		return 0
	}
	c := (d.rOut - math.Sqrt(float64(d2))) / d.band
	return int32(math.Max(0, math.Min(1, c)) * 256)
}

// rows returns the pixel rows [y0,y1) and columns [x0,x1) the disc can touch.
func (d *disc) bounds(w, h int) (x0, x1, y0, y1 int) {
	r := int(math.Ceil(d.rOut/2)) + 1
	cx, cy := int(d.cx2/2), int(d.cy2/2)
	return max(0, cx-r), min(w, cx+r+1), max(0, cy-r), min(h, cy+r+1)
}

func (p *params) paintBackground(img *image.NRGBA) {
	const one = 1 << 16
	d := [3]int32{p.c1[0] - p.c0[0], p.c1[1] - p.c0[1], p.c1[2] - p.c0[2]}
	for y := 0; y < p.h; y++ {
		row := img.Pix[y*img.Stride : y*img.Stride+4*p.w]
		t := p.gy*int64(y) + p.g0
		s := p.sy * int64(y)
		for x := 0; x < p.w; x++ {
			tc := min(max(t, 0), one)
			r := p.c0[0] + int32((int64(d[0])*tc)>>16)
			g := p.c0[1] + int32((int64(d[1])*tc)>>16)
			b := p.c0[2] + int32((int64(d[2])*tc)>>16)
			if (s>>16)&1 != 0 {
				k := p.stripeK
				r += (255 - r) * k >> 8
				g += (255 - g) * k >> 8
				b += (255 - b) * k >> 8
			}
			o := 4 * x
			px := row[o : o+4 : o+4]
			px[0], px[1], px[2], px[3] = uint8(r), uint8(g), uint8(b), 255
			t += p.gx
			s += p.sx
		}
	}
}

func (d *disc) paint(img *image.NRGBA) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	x0, x1, y0, y1 := d.bounds(w, h)
	for y := y0; y < y1; y++ {
		row := img.Pix[y*img.Stride:]
		for x := x0; x < x1; x++ {
			c := d.coverage(x, y)
			if c == 0 {
				continue
			}
			a := c * d.opacity >> 8 // 0..256
			o := 4 * x
			px := row[o : o+3 : o+3]
			for i := range 3 {
				v := int32(px[i])
				px[i] = uint8(v + (d.col[i]-v)*a>>8)
			}
		}
	}
}

// cutSubject makes everything outside the subject disc fully transparent
// (alpha 0, colour zeroed so encoders compress it well) and keeps the disc
// opaque, with intermediate alpha only on its anti-aliased rim.
func (p *params) cutSubject(img *image.NRGBA) {
	d := &p.subject
	x0, x1, y0, y1 := d.bounds(p.w, p.h)
	for y := 0; y < p.h; y++ {
		row := img.Pix[y*img.Stride : y*img.Stride+4*p.w]
		if y < y0 || y >= y1 {
			clear(row)
			continue
		}
		clear(row[:4*x0])
		clear(row[4*x1:])
		for x := x0; x < x1; x++ {
			c := d.coverage(x, y)
			o := 4 * x
			switch {
			case c == 0:
				clear(row[o : o+4])
			case c < 256:
				row[o+3] = uint8(c * 255 >> 8)
			}
		}
	}
}

// applyEdit blends the references into img. Without a mask the whole picture
// is edited; with one, pixels whose mask alpha is not 0 are the first
// reference unchanged. Edited pixels keep img's alpha (so Transparent still
// cuts out the subject) and mix averaged reference colour with img's colour.
func applyEdit(img *image.NRGBA, refs []image.Image, mask image.Image) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	scaled := make([]*image.NRGBA, 0, len(refs))
	for _, r := range refs {
		if r == nil || r.Bounds().Empty() {
			continue
		}
		scaled = append(scaled, resample(r, w, h))
	}
	if len(scaled) == 0 {
		return
	}
	var m *image.NRGBA
	if mask != nil && !mask.Bounds().Empty() {
		m = resample(mask, w, h)
	}
	n := int32(len(scaled))
	for y := 0; y < h; y++ {
		off := y * img.Stride
		row := img.Pix[off : off+4*w]
		for x := 0; x < w; x++ {
			o := 4 * x
			if m != nil && m.Pix[off+o+3] != 0 {
				copy(row[o:o+4], scaled[0].Pix[off+o:off+o+4])
				continue
			}
			for i := range 3 {
				var sum int32
				for _, r := range scaled {
					sum += int32(r.Pix[off+o+i])
				}
				ref := sum / n
				v := int32(row[o+i])
				row[o+i] = uint8((ref*editWeight + v*(256-editWeight)) >> 8)
			}
		}
	}
}

// resample converts src to an NRGBA of size w×h by nearest-neighbour
// sampling. Common decoder output types are read directly from their pixel
// buffers because image.Image.At costs an allocation-prone interface call
// per pixel, which would dominate at 1024² under -race.
func resample(src image.Image, w, h int) *image.NRGBA {
	b := src.Bounds()
	dst := image.NewNRGBA(image.Rect(0, 0, w, h))
	sw, sh := b.Dx(), b.Dy()
	xs := make([]int, w)
	for x := range xs {
		xs[x] = b.Min.X + (2*x+1)*sw/(2*w)
	}
	read := pixelReader(src)
	prevSY := math.MinInt
	for y := 0; y < h; y++ {
		sy := b.Min.Y + (2*y+1)*sh/(2*h)
		row := dst.Pix[y*dst.Stride : y*dst.Stride+4*w]
		if sy == prevSY {
			copy(row, dst.Pix[(y-1)*dst.Stride:(y-1)*dst.Stride+4*w])
			continue
		}
		prevSY = sy
		for x, sx := range xs {
			read(sx, sy, row[4*x:4*x+4:4*x+4])
		}
	}
	return dst
}

// pixelReader returns a function writing the non-premultiplied RGBA of
// src at (x,y) into px[0:4].
func pixelReader(src image.Image) func(x, y int, px []uint8) {
	switch s := src.(type) {
	case *image.NRGBA:
		return func(x, y int, px []uint8) {
			i := s.PixOffset(x, y)
			copy(px, s.Pix[i:i+4])
		}
	case *image.RGBA:
		return func(x, y int, px []uint8) {
			i := s.PixOffset(x, y)
			unpremultiply(px, s.Pix[i], s.Pix[i+1], s.Pix[i+2], s.Pix[i+3])
		}
	case *image.YCbCr:
		return func(x, y int, px []uint8) {
			yi, ci := s.YOffset(x, y), s.COffset(x, y)
			px[0], px[1], px[2] = color.YCbCrToRGB(s.Y[yi], s.Cb[ci], s.Cr[ci])
			px[3] = 255
		}
	case *image.NYCbCrA:
		return func(x, y int, px []uint8) {
			yi, ci := s.YOffset(x, y), s.COffset(x, y)
			px[0], px[1], px[2] = color.YCbCrToRGB(s.Y[yi], s.Cb[ci], s.Cr[ci])
			px[3] = s.A[s.AOffset(x, y)]
		}
	case *image.Gray:
		return func(x, y int, px []uint8) {
			v := s.Pix[s.PixOffset(x, y)]
			px[0], px[1], px[2], px[3] = v, v, v, 255
		}
	case *image.Paletted:
		pal := make([]color.NRGBA, 256)
		for i, c := range s.Palette {
			pal[i] = color.NRGBAModel.Convert(c).(color.NRGBA)
		}
		return func(x, y int, px []uint8) {
			c := pal[s.Pix[s.PixOffset(x, y)]]
			px[0], px[1], px[2], px[3] = c.R, c.G, c.B, c.A
		}
	default:
		return func(x, y int, px []uint8) {
			c := color.NRGBAModel.Convert(src.At(x, y)).(color.NRGBA)
			px[0], px[1], px[2], px[3] = c.R, c.G, c.B, c.A
		}
	}
}

func unpremultiply(px []uint8, r, g, b, a uint8) {
	switch a {
	case 0:
		px[0], px[1], px[2], px[3] = 0, 0, 0, 0
	case 255:
		px[0], px[1], px[2], px[3] = r, g, b, 255
	default:
		A := uint32(a)
		px[0] = uint8(uint32(r) * 255 / A)
		px[1] = uint8(uint32(g) * 255 / A)
		px[2] = uint8(uint32(b) * 255 / A)
		px[3] = a
	}
}
