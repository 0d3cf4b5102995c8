"""Writing the PDF: the page writer and what it draws around the faces (the print check, fold
marks, the guide's words)."""
