package browsertest

import (
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHeadlessRunsScriptsOffline: a page's script runs (its DOM change is in
// the dump) and a fetch by host name fails, though a server answers there.
func TestHeadlessRunsScriptsOffline(t *testing.T) {
	bin := Chromium(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	page := filepath.Join(t.TempDir(), "p.html")
	html := `<!DOCTYPE html><body><p id="s">static</p><p id="n">pending</p><script>
document.getElementById("s").textContent = "scripted";
fetch("http://localhost:` + port + `/x", {mode: "no-cors"}).then(() => { document.getElementById("n").textContent = "online"; },
  () => { document.getElementById("n").textContent = "offline"; });
</script></body>`
	if err := os.WriteFile(page, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	dom, _ := Headless(t, bin, page, "--dump-dom")
	for _, want := range []string{">scripted<", ">offline<"} {
		if !strings.Contains(dom, want) {
			t.Errorf("dump lacks %q:\n%s", want, dom)
		}
	}
}
