package report

import (
	_ "embed"
	"html/template"
)

// The page is one template file with its stylesheet and script inlined, so
// the written file needs nothing but itself. It defines "page" and "tail";
// the timeline and ops data are streamed between them (write.go).
var (
	//go:embed page.html.tmpl
	pageHTML string
	//go:embed page.css
	pageCSS string
	//go:embed page.js
	pageJS string
)

var pageTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"css": func() template.CSS { return template.CSS(pageCSS) },
	"js":  func() template.JS { return template.JS(pageJS) },
}).Parse(pageHTML))
