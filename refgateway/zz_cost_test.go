package refgateway
import ("testing";"time";"github.com/gwconform/gwconform/refgateway/imagery")
func TestCost(t *testing.T){
 for _, f := range []string{"png","jpeg","webp"} {
  st:=time.Now(); img:=imagery.Render(imagery.Scene{Prompt:"x",Seed:1,Width:1024,Height:1024,Transparent:true,Preview:-1}); r:=time.Since(st)
  st=time.Now(); b,_:=imagery.Encode(img,f,nil); t.Logf("%s render %v encode %v size %d", f, r, time.Since(st), len(b))
  st=time.Now(); imagery.Decode(b); t.Logf("decode %v", time.Since(st))
 }
}
