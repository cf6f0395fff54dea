"""The disposable SQLite index: the only owner of SQL, kept fresh from the files."""
