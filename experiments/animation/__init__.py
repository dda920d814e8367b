"""Drawing a search on its board, frame by frame (``race animate``): :mod:`.frames` turns
a solver's steps into board states, :mod:`.drawing` renders them to GIF, MP4 or HTML."""
