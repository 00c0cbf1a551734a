COPY NameKey FROM $rows
